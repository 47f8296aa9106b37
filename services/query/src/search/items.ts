import type { EdgeTarget, EpisodeView, EventView, FactView, Instant, MentionView } from '@memotrace/domain';

/**
 * Search items (SPEC §4) built from the views of one cut, and how each is rendered
 * as text. Pure: entity names come in as a lookup.
 */
export type ItemKind = 'event' | 'fact' | 'mention' | 'episode';

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
}

export interface ScoredCandidate extends Candidate {
  score: number;
}

export interface SearchItem extends ScoredCandidate {
  tokens: number;
}

/** `works_at` -> `works at`, `bornIn` -> `born in`. */
export function relationPhrase(rel: string): string {
  const phrase = rel
    .replace(/(\p{Ll})(\p{Lu})/gu, '$1 $2')
    .replace(/[_\-.:/]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .toLowerCase();
  return phrase === '' ? rel : phrase;
}

function targetText(dst: EdgeTarget, nameOf: (entityId: string) => string): string {
  return typeof dst === 'string' ? nameOf(dst) : String(dst.literal);
}

/** "Alice works at Acme": src and entity dst by name, a literal dst by its value. */
export function factText(fact: Pick<FactView, 'src' | 'rel' | 'dst'>, nameOf: (entityId: string) => string): string {
  return `${nameOf(fact.src)} ${relationPhrase(fact.rel)} ${targetText(fact.dst, nameOf)}`;
}

export function mentionText(mention: Pick<MentionView, 'speaker' | 'text'>): string {
  return mention.speaker !== null && mention.speaker.trim() !== '' ? `${mention.speaker}: ${mention.text}` : mention.text;
}

/** Evidence mentions of a fact that the cut can show (an id naming no visible mention is left out). */
export function factCandidate(fact: FactView, nameOf: (entityId: string) => string, visibleMentions: ReadonlySet<string>): Candidate {
  const mentions = [...new Set(fact.evidence)].filter((id) => visibleMentions.has(id));
  return {
    kind: 'fact',
    id: fact.factId,
    text: factText(fact, nameOf),
    recordedFrom: fact.recordedFrom,
    validFrom: fact.validFrom,
    validTo: fact.validTo,
    evidence: mentions.map((id) => ({ kind: 'mention', id })),
  };
}

export function eventCandidate(event: EventView): Candidate {
  return {
    kind: 'event',
    id: event.eventId,
    text: event.summary,
    recordedFrom: event.recordedFrom,
    validFrom: event.timeSpan.from,
    validTo: event.timeSpan.to,
    evidence: [...new Set(event.includesFacts)].map((id) => ({ kind: 'fact', id })),
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

export function mentionCandidate(mention: MentionView): Candidate {
  return {
    kind: 'mention',
    id: mention.mentionId,
    text: mentionText(mention),
    recordedFrom: mention.recordedFrom,
    ...(mention.occurredAt !== null ? { occurredAt: mention.occurredAt } : {}),
    evidence: [],
  };
}
