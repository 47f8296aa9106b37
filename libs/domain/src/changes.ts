import type { Cardinality, EdgeTarget, LinkKind, Participant } from './commands';
import type { Instant } from './time';

/**
 * What folding a log record does to the memory, as a small closed set of changes to
 * items. Every view of the memory (the domain's state, the read models, the search
 * corpus, OpenSearch documents) is built by applying changes, never by reading record
 * types: a new op that maps onto these changes needs no projection code.
 *
 * Every change happens at its record's `recordedAt`. Versioned items (facts, events,
 * episodes) have at most one version open in record time; the others are recorded once
 * and stay.
 */
export interface FactContent {
  src: string;
  rel: string;
  dst: EdgeTarget;
  validFrom: Instant;
  validTo: Instant | null;
  confidence: number | null;
  evidence: string[];
  source: string | null;
}

/** An L2 event's content. */
export interface EventContent {
  summary: string;
  participants: Participant[];
  includesFacts: string[];
  timeSpan: { from: Instant; to: Instant | null };
}

export interface EpisodeContent {
  title: string;
  window: { from: Instant; to: Instant | null };
  events: string[];
}

export interface VersionedContent {
  fact: FactContent;
  event: EventContent;
  episode: EpisodeContent;
}

export type VersionedKind = keyof VersionedContent;

/**
 * A new version of an item opens; the item's open version (if any) closes at the same instant.
 * `content` is read-only: it may be the log record's own data (with the item's id beside it).
 */
export type VersionOpened = { [K in VersionedKind]: { change: 'opened'; kind: K; id: string; content: VersionedContent[K] } }[VersionedKind];

/** The item's open version (if any) closes: nothing of it is believed from then on. */
export interface VersionClosed {
  change: 'closed';
  kind: VersionedKind;
  id: string;
}

/** The fact's open version (if any) closes, and a copy of it with this validity opens. */
export interface ValidityCorrected {
  change: 'corrected';
  kind: 'fact';
  id: string;
  validFrom: Instant;
  validTo: Instant | null;
}

/** A new entity with its name; a second registration of the same id changes nothing. */
export interface EntityAdded {
  change: 'entity';
  entityId: string;
  name: string;
  aliases: string[];
  types: string[];
}

/** Aliases and types added to a known entity (only the new ones). */
export interface EntityLabelled {
  change: 'labels';
  entityId: string;
  aliases: string[];
  types: string[];
}

/** `srcRoot`/`dstRoot`: the canonical ids of src and dst when the merge was recorded. */
export interface MergeRecorded {
  change: 'merge';
  srcId: string;
  dstId: string;
  srcRoot: string;
  dstRoot: string;
}

/** The latest declaration of a relation wins. */
export interface RelationDeclared {
  change: 'relation';
  rel: string;
  cardinality: Cardinality;
}

/** The latest link between two events of a kind wins. */
export interface LinkRecorded {
  change: 'link';
  kind: LinkKind;
  from: string;
  to: string;
  qualifier: string | null;
}

/** A mention never changes once recorded; a second record of the same id changes nothing. */
export interface MentionAdded {
  change: 'mention';
  mentionId: string;
  docId: string;
  text: string;
  speaker: string | null;
  occurredAt: Instant | null;
}

export type Change =
  VersionOpened | VersionClosed | ValidityCorrected | EntityAdded | EntityLabelled | MergeRecorded | RelationDeclared | LinkRecorded | MentionAdded;

export type ChangeType = Change['change'];

export const CHANGE_TYPES: readonly ChangeType[] = ['opened', 'closed', 'corrected', 'entity', 'labels', 'merge', 'relation', 'link', 'mention'];

/** The versioned item a change touches, if any: what a projection must load before applying it. */
export function versionedItemOf(change: Change): { kind: VersionedKind; id: string } | null {
  return change.change === 'opened' || change.change === 'closed' || change.change === 'corrected' ? change : null;
}
