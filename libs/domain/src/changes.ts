import type { Cardinality, EdgeTarget, LinkKind, Participant } from './commands';
import type { ErasedItems, ErasureSubject } from './erasure-subject';
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
  /** Null when its literal is erased. */
  dst: EdgeTarget | null;
  validFrom: Instant;
  validTo: Instant | null;
  confidence: number | null;
  evidence: string[];
  source: string | null;
}

/** An L2 event's content. */
export interface EventContent {
  /** Null when erased. */
  summary: string | null;
  participants: Participant[];
  includesFacts: string[];
  timeSpan: { from: Instant; to: Instant | null };
}

export interface EpisodeContent {
  title: string;
  window: { from: Instant; to: Instant | null };
  events: string[];
}

/** A member of a topic: a mention, an event or a fact, its kind known from when the topic was recorded. */
export interface TopicMember {
  kind: 'mention' | 'event' | 'fact';
  id: string;
}

export interface TopicContent {
  /** Null when erased (a member's content was). */
  title: string | null;
  summary: string | null;
  window: { from: Instant; to: Instant | null };
  members: TopicMember[];
}

export interface VersionedContent {
  fact: FactContent;
  event: EventContent;
  episode: EpisodeContent;
  topic: TopicContent;
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

/** A new entity with its name; a second registration of the same id changes nothing, unless the entity was erased: then it names it again. */
export interface EntityAdded {
  change: 'entity';
  entityId: string;
  /** Null when erased. */
  name: string | null;
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
  /** How long its facts keep their content (ISO-8601 duration), or null. */
  retention: string | null;
}

/** The memory's extraction gate (null: the process's default); the latest wins. */
export interface GateSet {
  change: 'gate';
  gate: number | null;
}

/** When items cool (SPEC §5.4): `coldAfter` an ISO-8601 duration, `salienceFloor` in [0, 1]; null turns a condition off. */
export interface TierPolicy {
  coldAfter: string | null;
  salienceFloor: number | null;
}

/** The memory's tier policy; the latest wins. */
export interface TierPolicyChanged extends TierPolicy {
  change: 'tiers';
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
  /** Null when erased. */
  text: string | null;
  speaker: string | null;
  occurredAt: Instant | null;
}

/**
 * The content of these items is erased in every version they have so far (names, aliases and
 * types; literal and source; summary; text and speaker): ids, times and structure stay.
 */
export interface ContentErased extends ErasedItems {
  change: 'erased';
  subject: ErasureSubject;
}

export type Change =
  | VersionOpened
  | VersionClosed
  | ValidityCorrected
  | EntityAdded
  | EntityLabelled
  | MergeRecorded
  | RelationDeclared
  | GateSet
  | TierPolicyChanged
  | LinkRecorded
  | MentionAdded
  | ContentErased;

export type ChangeType = Change['change'];

export const CHANGE_TYPES: readonly ChangeType[] = [
  'opened',
  'closed',
  'corrected',
  'entity',
  'labels',
  'merge',
  'relation',
  'gate',
  'tiers',
  'link',
  'mention',
  'erased',
];

/** The versioned item a change touches, if any: what a projection must load before applying it. */
export function versionedItemOf(change: Change): { kind: VersionedKind; id: string } | null {
  return change.change === 'opened' || change.change === 'closed' || change.change === 'corrected' ? change : null;
}
