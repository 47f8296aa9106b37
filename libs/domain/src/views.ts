import type { EdgeTarget, Participant } from './commands';
import type { Instant } from './time';

/** Answer shapes of time-cut queries, shared by the projection and replay paths. */
export type ValidAt = Instant | '*';

export interface Cut {
  validAt: ValidAt;
  recordedAt: Instant;
}

export interface FactView {
  factId: string;
  src: string;
  rel: string;
  /** Null when its literal was erased. */
  dst: EdgeTarget | null;
  validFrom: Instant;
  validTo: Instant | null;
  recordedFrom: Instant;
  recordedTo: Instant | null;
  confidence: number | null;
  evidence: string[];
  source: string | null;
  /** Present (true) only when the version's content was erased. */
  erased?: true;
}

export interface FactFilter {
  src?: string;
  rel?: string;
  /** An entity id, or the string form of a literal value. */
  dst?: string;
}

export interface EntityView {
  entityId: string;
  /** Null when erased. */
  name: string | null;
  /** Its name, then the names of the entities merged into it (SPEC: "names, aliases and merges"). */
  names: string[];
  /** Aliases of every member, and the merged members' names. */
  aliases: string[];
  types: string[];
  /**
   * The merges that made this class, in record order: `entityId`'s class joined `into`'s at
   * `recordedAt` (for a chain a -> b, then b -> c: a into b, then b into c).
   */
  merges: { entityId: string; into: string; recordedAt: Instant }[];
  recordedFrom: Instant;
  erased?: true;
}

/**
 * Which entities a listing shows (`entitiesAt`, `MemoryQueries.entities`). Names and types compare
 * as `normaliseName` keys (case-folded, whitespace-normalised), the form the default entity id is
 * derived from, so "alice" finds the entity `UPSERT_ENTITY {name: "Alice"}` made.
 */
export interface EntityFilter {
  /** An entity's name or any alias: its own, or of an entity merged into it (its `names` and `aliases`). */
  name?: string;
  /** `exact` (default): the whole key; `prefix`: keys that start with the name's key ("ali" finds "Alice Smith"). */
  match?: 'exact' | 'prefix';
  /** One of its types. */
  type?: string;
  /** Paging: only entities whose id sorts after this one (`compareIds`). */
  after?: string;
  /** At most this many, the first by id. */
  limit?: number;
}

export interface EventView {
  eventId: string;
  summary: string | null;
  timeSpan: { from: Instant; to: Instant | null };
  participants: Participant[];
  includesFacts: string[];
  recordedFrom: Instant;
  erased?: true;
}

export interface EpisodeView {
  episodeId: string;
  title: string;
  window: { from: Instant; to: Instant | null };
  events: string[];
  recordedFrom: Instant;
}

export interface MentionView {
  mentionId: string;
  docId: string;
  text: string | null;
  speaker: string | null;
  occurredAt: Instant | null;
  recordedFrom: Instant;
  erased?: true;
}

export interface ChangeView {
  change: 'opened' | 'closed';
  at: Instant;
  version: FactView;
}

/** One ordering for every listing, independent of database collations. */
export function compareIds(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Ids in natural order: digit runs compare as numbers, so turn D1:9 comes before D1:10. */
const NATURAL = new Intl.Collator('en', { numeric: true });

/** Where a mention stands in its document: when it was said (null or absent: unknown), and its id. */
export interface TurnPlace {
  occurredAt?: Instant | null | undefined;
  mentionId: string;
}

/**
 * Document order, the order of a document's mentions (a conversation's turns): by `occurredAt`, those
 * without one last (their place in time is unknown), then by `mentionId` in natural order. Both read paths
 * sort in JS with this one function, because a database collation could order ids differently; the final
 * bytewise comparison makes it total, as the collator calls some distinct ids equal.
 */
export function compareDocumentOrder(a: TurnPlace, b: TurnPlace): number {
  const at = a.occurredAt ?? null;
  const bt = b.occurredAt ?? null;
  if (at !== bt) {
    if (at === null) return 1;
    if (bt === null) return -1;
    return compareIds(at, bt);
  }
  return NATURAL.compare(a.mentionId, b.mentionId) || compareIds(a.mentionId, b.mentionId);
}
