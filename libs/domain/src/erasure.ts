import type { Erase } from './commands';
import type { ErasedItems, ErasureSubject } from './erasure-subject';
import type { MemoryState } from './state';

export type { ErasedItems, ErasureSubject, ErasureSubjectKind } from './erasure-subject';

export function erasureSubjectOf(subject: Erase['subject']): ErasureSubject {
  if ('entityId' in subject) return { kind: 'entity', id: subject.entityId };
  if ('factId' in subject) return { kind: 'fact', id: subject.factId };
  if ('mentionId' in subject) return { kind: 'mention', id: subject.mentionId };
  return { kind: 'doc', id: subject.docId };
}

/** The command's `subject` field for a subject (export writes the ERASE back). */
export function subjectField(subject: ErasureSubject): Erase['subject'] {
  switch (subject.kind) {
    case 'entity':
      return { entityId: subject.id };
    case 'fact':
      return { factId: subject.id };
    case 'mention':
      return { mentionId: subject.id };
    case 'doc':
      return { docId: subject.id };
    default:
      return subject.kind satisfies never;
  }
}

export function erasureKey(subject: ErasureSubject): string {
  return `${subject.kind}\u0000${subject.id}`;
}

/**
 * SPEC §5.2's content rule, the one definition: an entity's content is its names, aliases and
 * types, the literal and source of every fact naming it (as src or dst) and the summary of every
 * event it takes part in; a fact's, its literal and source; a mention's, its text and speaker; a
 * document's, that of its mentions. Only items that still hold content are listed, so erasing
 * twice with nothing written in between erases nothing.
 */
export function erasedItemsOf(state: MemoryState, subject: ErasureSubject): ErasedItems {
  const items = erasedOwnItems(state, subject);
  const topics = topicsNaming(state, items);
  return topics.length > 0 ? { ...items, topics } : items;
}

/**
 * The topics with a member among the erased items: a topic's title and summary say what its members say (its
 * content is sealed under their subjects, content.ts), so they go with them.
 */
function topicsNaming(state: MemoryState, items: ErasedItems): string[] {
  if (state.topics.size === 0) return [];
  const erased = new Set([
    ...items.facts.map((id) => `fact\u0000${id}`),
    ...items.events.map((id) => `event\u0000${id}`),
    ...items.mentions.map((id) => `mention\u0000${id}`),
  ]);
  const topics: string[] = [];
  for (const [topicId, versions] of state.topics) {
    if (versions.some((v) => !v.erased && v.members.some((m) => erased.has(`${m.kind}\u0000${m.id}`)))) topics.push(topicId);
  }
  return topics;
}

function erasedOwnItems(state: MemoryState, subject: ErasureSubject): ErasedItems {
  const items: ErasedItems = { entities: [], facts: [], events: [], mentions: [] };
  switch (subject.kind) {
    case 'entity': {
      const entity = state.entities.get(subject.id);
      if (entity && (entity.name !== null || entity.aliases.length > 0 || entity.types.length > 0)) items.entities.push(subject.id);
      for (const fact of state.facts.values()) {
        if ((fact.src === subject.id || fact.dst === subject.id) && fact.versions.some((v) => !v.erased)) items.facts.push(fact.factId);
      }
      for (const [eventId, versions] of state.events) {
        if (versions.some((v) => !v.erased && v.participants.some((p) => p.entityId === subject.id))) items.events.push(eventId);
      }
      return items;
    }
    case 'fact': {
      const fact = state.facts.get(subject.id);
      if (fact && fact.versions.some((v) => !v.erased)) items.facts.push(subject.id);
      return items;
    }
    case 'mention': {
      const mention = state.mentions.get(subject.id);
      if (mention && !mention.erased) items.mentions.push(subject.id);
      return items;
    }
    case 'doc':
      for (const mention of state.mentions.values()) if (mention.docId === subject.id && !mention.erased) items.mentions.push(mention.mentionId);
      return items;
    default:
      return subject.kind satisfies never;
  }
}

export function isEmpty(items: ErasedItems): boolean {
  return items.entities.length + items.facts.length + items.events.length + items.mentions.length === 0;
}
