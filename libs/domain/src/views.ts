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
  dst: EdgeTarget;
  validFrom: Instant;
  validTo: Instant | null;
  recordedFrom: Instant;
  recordedTo: Instant | null;
  confidence: number | null;
  evidence: string[];
  source: string | null;
}

export interface FactFilter {
  src?: string;
  rel?: string;
  /** An entity id, or the string form of a literal value. */
  dst?: string;
}

export interface EntityView {
  entityId: string;
  name: string;
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
  summary: string;
  timeSpan: { from: Instant; to: Instant | null };
  participants: Participant[];
  includesFacts: string[];
  recordedFrom: Instant;
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
  text: string;
  speaker: string | null;
  occurredAt: Instant | null;
  recordedFrom: Instant;
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
