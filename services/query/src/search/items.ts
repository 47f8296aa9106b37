import type { EdgeTarget, EpisodeView, EventView, FactView, Instant, ItemKind, MentionView, Tier } from '@memotrace/domain';
import { factText, mentionText, relationPhrase } from '@memotrace/search-index';

/**
 * Search items (SPEC §4) built from the views of one cut, and how each is rendered
 * as text. Pure: entity names come in as a lookup.
 */

export interface EvidenceRef {
  kind: ItemKind;
  id: string;
}

/** An item before ranking: what it is, its text, its time fields, its evidence links. */
export interface Candidate {
  kind: ItemKind;
  id: string;
  text: string;
  recordedFrom: Instant;
  validFrom?: Instant;
  validTo?: Instant | null;
  occurredAt?: Instant;
  evidence: EvidenceRef[];
  /** Graph links used by expansion, never answered: entities a fact or event names, a mention's document. */
  entities?: string[];
  docId?: string;
  /** Who said a mention: a query that names them asks about their own words. */
  speaker?: string;
  /** Whom a fact is about (its source entity's name): a query that names them asks about it as about their words. */
  subject?: string;
}

export interface ScoredCandidate extends Candidate {
  score: number;
}

export interface SearchItem extends ScoredCandidate {
  tokens: number;
  /** SPEC 5.4: in [0, 1], set by the search that answers it. */
  salience?: number;
  /** Facts, events and mentions: the tier the item is in. */
  tier?: Tier;
}

export { relationPhrase, factText, mentionText };

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/**
 * The text an item is answered with. A mention's carries the day it was said (UTC), `[8 May 2023] Caroline: ...`,
 * so an LLM given only the packed texts can answer "when"; the indexed text stays without it, so the date's words
 * never match a query on their own.
 */
export function answeredText(c: Pick<Candidate, 'kind' | 'text' | 'occurredAt'>): string {
  if (c.kind !== 'mention' || c.occurredAt === undefined) return c.text;
  const day = new Date(c.occurredAt);
  return `[${day.getUTCDate()} ${MONTHS[day.getUTCMonth()]} ${day.getUTCFullYear()}] ${c.text}`;
}

/**
 * Search never returns an erased text (SPEC §5.2): an item whose content was erased, or reads null
 * (its log record read after its key was destroyed), is no search item at all. It stays in the cut
 * as structure (ids and times: an event's facts, a fact's evidence) but is never a candidate,
 * a hit or a neighbour.
 */
export type SearchableFact = FactView & { dst: EdgeTarget };
export type SearchableEvent = EventView & { summary: string };
export type SearchableMention = MentionView & { text: string };

export function isSearchableFact(fact: FactView): fact is SearchableFact {
  return fact.erased !== true && fact.dst !== null;
}

export function isSearchableEvent(event: EventView): event is SearchableEvent {
  return event.erased !== true && event.summary !== null;
}

export function isSearchableMention(mention: MentionView): mention is SearchableMention {
  return mention.erased !== true && mention.text !== null;
}

/** Evidence mentions of a fact that the cut can show (an id naming no visible mention is left out). */
export function factCandidate(
  fact: Pick<FactView, 'factId' | 'src' | 'rel' | 'validFrom' | 'validTo' | 'recordedFrom' | 'evidence'> & { dst: EdgeTarget },
  nameOf: (entityId: string) => string,
  visibleMentions: { has(mentionId: string): boolean },
): Candidate {
  const mentions = [...new Set(fact.evidence)].filter((id) => visibleMentions.has(id));
  return {
    kind: 'fact',
    id: fact.factId,
    text: factText(fact, nameOf),
    recordedFrom: fact.recordedFrom,
    validFrom: fact.validFrom,
    validTo: fact.validTo,
    evidence: mentions.map((id) => ({ kind: 'mention', id })),
    entities: typeof fact.dst === 'string' ? [fact.src, fact.dst] : [fact.src],
    subject: nameOf(fact.src),
  };
}

export function eventCandidate(event: SearchableEvent): Candidate {
  return {
    kind: 'event',
    id: event.eventId,
    text: event.summary,
    recordedFrom: event.recordedFrom,
    validFrom: event.timeSpan.from,
    validTo: event.timeSpan.to,
    evidence: [...new Set(event.includesFacts)].map((id) => ({ kind: 'fact', id })),
    entities: [...new Set(event.participants.map((p) => p.entityId))],
  };
}

export function episodeCandidate(episode: EpisodeView): Candidate {
  return {
    kind: 'episode',
    id: episode.episodeId,
    text: episode.title,
    recordedFrom: episode.recordedFrom,
    validFrom: episode.window.from,
    validTo: episode.window.to,
    evidence: [...new Set(episode.events)].map((id) => ({ kind: 'event', id })),
  };
}

export function mentionCandidate(mention: SearchableMention): Candidate {
  return {
    kind: 'mention',
    id: mention.mentionId,
    text: mentionText(mention),
    recordedFrom: mention.recordedFrom,
    ...(mention.occurredAt !== null ? { occurredAt: mention.occurredAt } : {}),
    evidence: [],
    docId: mention.docId,
    ...(mention.speaker !== null && mention.speaker.trim() !== '' ? { speaker: mention.speaker } : {}),
  };
}
