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

/**
 * One page of a listing sorted by id (`compareIds`): the items whose id sorts after `after`, at
 * most `limit` of them. Both absent: the whole listing.
 */
export interface Page {
  /** Only items whose id sorts after this one. */
  after?: string;
  /** At most this many, the first by id. */
  limit?: number;
}

export interface FactFilter extends Page {
  /** An entity id, or several: a fact from any of them (or from an entity merged with one by then) matches. */
  src?: string | readonly string[];
  rel?: string;
  /** An entity id, or the string form of a literal value. */
  dst?: string;
}

/** Which events a listing shows, a page at a time by eventId. */
export interface EventFilter extends Page {
  /**
   * Events about this entity (or an entity merged with it by then): it takes part in them, or a fact of
   * their evidence (`includesFacts`) is from or to it.
   */
  entity?: string;
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
export interface EntityFilter extends Page {
  /** An entity's name or any alias: its own, or of an entity merged into it (its `names` and `aliases`). */
  name?: string;
  /** `exact` (default): the whole key; `prefix`: keys that start with the name's key ("ali" finds "Alice Smith"). */
  match?: 'exact' | 'prefix';
  /** One of its types. */
  type?: string;
  /** Only the entities these ids name: each id's canonical entity (an id merged away names the entity it joined). */
  ids?: readonly string[];
}

export interface MentionFilter {
  /** Only the mentions these ids name. */
  ids?: readonly string[];
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

export interface TopicView {
  topicId: string;
  /** Null when erased. */
  title: string | null;
  summary: string | null;
  window: { from: Instant; to: Instant | null };
  /** Its members visible at the cut's record time, in the topic's order. */
  members: string[];
  recordedFrom: Instant;
  erased?: true;
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

/** How many changes (versions opened or closed) happened at one record instant. */
export interface ChangeCount {
  at: Instant;
  changes: number;
}

/**
 * Where a page of at most `limit` changes of a window `[from, to)` ends: the page is the window
 * `[from, end)`, whole record instants only, as many as fit in `limit` and at least the first (which
 * may alone hold more); null when every change fits. `counts`: the window's first `limit + 1`
 * instants with changes (or all, if fewer), ascending: enough to decide, as each holds one change or more.
 */
export function changesPageEnd(counts: readonly ChangeCount[], limit: number): Instant | null {
  let total = 0;
  for (const [i, count] of counts.entries()) {
    if (i > 0 && total + count.changes > limit) return count.at;
    total += count.changes;
  }
  return null;
}

/**
 * One ordering for every listing, independent of database collations: Unicode code point order, the
 * order of UTF-8 bytes, which is how the read models' id columns (`COLLATE "C"`) sort, so a page can be
 * cut in SQL. It differs from JavaScript's `<` (UTF-16 code units) only where a character beyond U+FFFF
 * (a surrogate pair) meets one from U+E000 to U+FFFF: the pair sorts after it.
 */
export function compareIds(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    // Surrogates (U+D800..U+DFFF) move above U+E000..U+FFFF; below U+D800 units are code points.
    if (x >= 0xd800 && y >= 0xd800) return codePointRank(x) < codePointRank(y) ? -1 : 1;
    return x < y ? -1 : 1;
  }
  return a.length < b.length ? -1 : 1;
}

function codePointRank(unit: number): number {
  return unit >= 0xe000 ? unit - 0x800 : unit + 0x2000;
}

/** The page of an id-sorted listing (see Page): what follows `after`, at most `limit`. */
export function pageOf<T>(sorted: readonly T[], idOf: (item: T) => string, page: Page): T[] {
  const { after, limit } = page;
  let start = 0;
  if (after !== undefined) while (start < sorted.length && compareIds(idOf(sorted[start]!), after) <= 0) start++;
  return sorted.slice(start, limit === undefined ? undefined : start + limit);
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
