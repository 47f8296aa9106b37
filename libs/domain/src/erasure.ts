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
