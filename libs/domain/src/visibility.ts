import type { ItemKind } from './search-items';
import type { Instant } from './time';
import type { Cut, ValidAt } from './views';

/**
 * SPEC §3.2, the bitemporal cut, stated once and as data: for each kind of item, the rule
 * that says whether an item of that kind is in a cut `(validAt, recordedAt)`. Every
 * backend translates these rules instead of writing its own copy of them:
 *
 * - the domain's reference cut (`cut.ts`, over a state folded to the cut's record time),
 *   through `inCut` below and its translation table `STATE_ITEMS`;
 * - the read models' SQL (projections/read-models/src/cut-sql.ts: WHERE predicates);
 * - the embedded search corpus (services/query/src/search/corpus-cut.ts: a scan of typed arrays);
 * - OpenSearch (libs/search-opensearch/src/visible-intervals.ts: each document's set of
 *   record times, and cut-filter.ts: the query's filter).
 *
 * A backend's translation table is typed `Translations<...>`: keyed by every `CutKind`, and
 * for each kind it must say where exactly the parts its rule reads are stored (the end of
 * the record interval only for `record: 'interval'`, a validity only where the rule has one,
 * the member list only where the rule requires members). Changing a rule here, or adding a
 * kind, fails the compilation of every backend that does not follow.
 */
/** The search items' kinds, and what else a cut shows. */
export type CutKind = ItemKind | 'entity' | 'merge';

export const CUT_KINDS: readonly CutKind[] = ['fact', 'event', 'episode', 'mention', 'entity', 'merge'];

/**
 * Which record times `r` show an item:
 * - `interval`: `recordedFrom <= r < recordedTo` (`recordedTo` null = open = +infinity): one
 *   version of a versioned item, believed from when it was recorded until it was closed;
 * - `since`: `recordedFrom <= r`: an item recorded once, which stays.
 */
export type RecordRule = 'interval' | 'since';

/**
 * The interval `[from, to)` of an item that valid time cuts (`from <= validAt < to`, `to`
 * null = +infinity; `validAt = '*'` passes every item): a fact version's validity, an
 * event's time span, an episode's window.
 */
export type ValidityInterval = 'validity' | 'timeSpan' | 'window';

/** A list of item ids that an item names: an event's `includesFacts`, an episode's `events`. */
export type MemberList = 'includesFacts' | 'events';

/**
 * What an item needs of the items it names. A member *counts* at record time r iff an item
 * of `kind` with its id is in the cut `(validAt '*', r)` by that kind's own rule (for a
 * fact: it "has a version with recordedFrom <= r < recordedTo", it is believed at r).
 */
export interface Requirement {
  /** `every`: every member counts (an empty list: vacuously true); `some`: at least one does. */
  readonly quantifier: 'every' | 'some';
  readonly members: MemberList;
  readonly kind: CutKind;
  /** What answers list of the members: `all` of them, or only those that `count` at r. */
  readonly lists: 'all' | 'counting';
}

export interface VisibilityRule {
  /** The sentence of the specification the rule encodes. */
  readonly spec: string;
  readonly record: RecordRule;
  readonly validity: ValidityInterval | null;
  readonly requires: Requirement | null;
}

/** The rules. An item is in the cut iff its record rule, its validity (if any) and its requirement (if any) all hold. */
export const VISIBILITY = {
  fact: {
    spec:
      'SPEC 3.2: "A fact version is in the cut iff recordedFrom <= recordedAt < recordedTo and validFrom <= validAt < validTo ' +
      '(open ends are +infinity)."',
    record: 'interval',
    validity: 'validity',
    requires: null,
  },
  event: {
    spec:
      'SPEC 3.2: "An event is visible at recordedAt iff it was recorded at or before it AND every fact in includesFacts has a version with ' +
      'recordedFrom <= recordedAt < recordedTo (event visibility: no future leakage, no retracted evidence). With a validAt, an event is listed ' +
      'only if its timeSpan contains validAt." An UPSERT_EVENT of a known event opens a new version, which closes the previous one at the same ' +
      'instant: "recorded at or before" is "its version at recordedAt", whose content (span, evidence) answers.',
    record: 'interval',
    validity: 'timeSpan',
    requires: { quantifier: 'every', members: 'includesFacts', kind: 'fact', lists: 'all' },
  },
  episode: {
    spec:
      'SPEC 3.2: "An episode is visible iff recorded at or before recordedAt and at least one of its events is visible; it lists only its ' +
      'visible events." Its events count at any validity (validAt "*"); like an event by its timeSpan, with a validAt an episode is listed ' +
      'only if its window contains validAt. Versioned like events.',
    record: 'interval',
    validity: 'window',
    requires: { quantifier: 'some', members: 'events', kind: 'event', lists: 'counting' },
  },
  mention: {
    spec: 'SPEC 3.2: "Mentions are visible at recordedAt iff recorded at or before it." (Mentions are immutable, SPEC 3: any validAt.)',
    record: 'since',
    validity: null,
    requires: null,
  },
  entity: {
    spec:
      'SPEC 3.2: "Entities are visible at recordedAt iff created at or before it; aliases and merges likewise." ' +
      '(Aliases and types: each by its own record time.)',
    record: 'since',
    validity: null,
    requires: null,
  },
  merge: {
    spec:
      'SPEC 3.2: "... aliases and merges likewise." MERGE_ENTITY: "from this command\'s recordedAt on, srcId is an alias of dstId ... and are ' +
      'unaffected before it (no future coreference leaks into the past)."',
    record: 'since',
    validity: null,
    requires: null,
  },
} as const satisfies { readonly [K in CutKind]: VisibilityRule };

export type RuleOf<K extends CutKind> = (typeof VISIBILITY)[K];

/**
 * A topic's rule: an episode's, over members of three kinds (each member keeps the kind it had when
 * the topic was recorded). Topics are no search items, so no search backend translates it: the
 * domain's cut and the read models' SQL do.
 */
export const TOPIC_VISIBILITY = {
  spec:
    'SPEC 5.4: "Like episodes, topics are never evidence, are visible in a cut iff a member is visible, and list only visible members; ' +
    'with a validAt, a topic is listed only if its window contains it." A member counts by its own kind\'s rule at validAt "*".',
  record: 'interval',
  validity: 'window',
  requires: { quantifier: 'some', lists: 'counting', kinds: ['mention', 'event', 'fact'] },
} as const;

/** The rule of a kind, as the general type (for code that reads any rule). */
export function ruleOf(kind: CutKind): VisibilityRule {
  return VISIBILITY[kind];
}

/**
 * What a backend stores for each part of a rule (a column name, an accessor, a field name):
 * `recordedFrom` and `recordedTo` (the record interval), `validity` (the validity interval),
 * `members` (the member list).
 */
export interface TranslationParts {
  recordedFrom: unknown;
  recordedTo: unknown;
  validity: unknown;
  members: unknown;
}

/**
 * A backend's translation of one kind's rule: exactly the parts the rule reads, plus what the
 * backend adds of its own (`Extra`: a table name, an id column, ...).
 */
export type Translation<K extends CutKind, P extends TranslationParts, Extra = unknown> = Extra & {
  readonly recordedFrom: P['recordedFrom'];
} & (RuleOf<K>['record'] extends 'interval' ? { readonly recordedTo: P['recordedTo'] } : { readonly recordedTo?: never }) &
  (RuleOf<K>['validity'] extends null ? { readonly validity?: never } : { readonly validity: P['validity'] }) &
  (RuleOf<K>['requires'] extends null ? { readonly members?: never } : { readonly members: P['members'] });

/** A backend's translation table: every kind, each with exactly what its rule reads. */
export type Translations<P extends { [K in CutKind]: TranslationParts }, Extra extends { [K in CutKind]: unknown } = { [K in CutKind]: unknown }> = {
  readonly [K in CutKind]: Translation<K, P[K], Extra[K]>;
};

/** The same parts for every kind. */
export type Uniform<P extends TranslationParts> = { [K in CutKind]: P };

// --- the generic evaluator -------------------------------------------------------------

/**
 * The record rule: `from <= r`, and `r < to` for an interval (`to` null: open). Generic over
 * the representation: canonical instants (which compare as strings) or epoch milliseconds.
 */
export function inRecordTime<T extends Instant | number>(record: RecordRule, from: T, to: T | null, r: T): boolean {
  return from <= r && (record === 'since' || to === null || r < to);
}

/** The validity rule: `validAt` is '*', or `from <= validAt < to` (`to` null: open). */
export function inValidTime<T extends Instant | number>(from: T, to: T | null, validAt: T | '*'): boolean {
  return validAt === '*' || (from <= validAt && (to === null || validAt < to));
}

/** The requirement: every / some member counts. */
export function requirementHolds(requires: Requirement, members: readonly string[], counts: (id: string) => boolean): boolean {
  return requires.quantifier === 'every' ? members.every(counts) : members.some(counts);
}

/** The members an answer lists: all, or only those that count. */
export function listedMembers(requires: Requirement, members: readonly string[], counts: (id: string) => boolean): string[] {
  return requires.lists === 'all' ? [...members] : members.filter(counts);
}

/** How the generic evaluator reads items of type T (a translation whose parts are accessors). */
export interface AccessorParts<T> {
  recordedFrom: (item: T) => Instant;
  recordedTo: (item: T) => Instant | null;
  validity: { from: (item: T) => Instant; to: (item: T) => Instant | null };
  members: (item: T) => readonly string[];
}

/** An accessor translation of any kind, read loosely (the parts its rule does not read are absent). */
interface LooseAccessors<T> {
  recordedFrom: (item: T) => Instant;
  recordedTo?: (item: T) => Instant | null;
  validity?: { from: (item: T) => Instant; to: (item: T) => Instant | null };
  members?: (item: T) => readonly string[];
}

/**
 * The generic evaluator: whether `item` of `kind` is in `cut`, by the kind's rule, reading the
 * item through `fields`. `counts(kind, id)` says whether a member counts at the cut's record
 * time (is in the cut `('*', recordedAt)`): the caller evaluates that with this function too.
 */
export function inCut<K extends CutKind, T>(
  kind: K,
  item: T,
  fields: Translation<K, AccessorParts<T>>,
  cut: Cut,
  counts: (kind: CutKind, id: string) => boolean,
): boolean {
  return compileCut(kind, fields)(item, cut, counts);
}

/** A kind's rule compiled for items of type T: `inCut` with the rule's lookups done once. */
export type CutPredicate<T> = (item: T, cut: Cut, counts: (kind: CutKind, id: string) => boolean) => boolean;

/** `inCut` of one kind, compiled once from its rule and translation (for hot paths: no per-item rule lookups). */
export function compileCut<K extends CutKind, T>(kind: K, fields: Translation<K, AccessorParts<T>>): CutPredicate<T> {
  const rule = ruleOf(kind);
  const { record, validity, requires } = rule;
  const read = fields as LooseAccessors<T>;
  const from = read.recordedFrom;
  const to = record === 'interval' ? read.recordedTo! : null;
  const valid = validity === null ? null : read.validity!;
  const members = requires === null ? null : read.members!;
  // One closure per rule shape, built once: the reference cut calls it for every item of a state.
  const recorded: (item: T, r: Instant) => boolean =
    to === null
      ? (item, r) => from(item) <= r
      : (item, r) => {
          const end = to(item);
          return from(item) <= r && (end === null || r < end);
        };
  const inValidity: ((item: T, validAt: ValidAt) => boolean) | null =
    valid === null ? null : (item, validAt) => inValidTime(valid.from(item), valid.to(item), validAt);
  if (requires === null) {
    return inValidity === null
      ? (item, cut) => recorded(item, cut.recordedAt)
      : (item, cut) => recorded(item, cut.recordedAt) && inValidity(item, cut.validAt);
  }
  return (item, cut, counts) =>
    recorded(item, cut.recordedAt) &&
    (inValidity === null || inValidity(item, cut.validAt)) &&
    requirementHolds(requires, members!(item), (id) => counts(requires.kind, id));
}

/**
 * The kinds in an order where a kind comes after the kinds its rule requires members of (a
 * backend that settles whole kinds at a time settles them in this order). Throws on a cycle.
 */
export function kindsByDependency(kinds: readonly CutKind[] = CUT_KINDS): CutKind[] {
  const ordered: CutKind[] = [];
  const visiting = new Set<CutKind>();
  const visit = (kind: CutKind) => {
    if (ordered.includes(kind)) return;
    if (visiting.has(kind)) throw new Error(`the visibility rules require members in a cycle through ${kind}`);
    visiting.add(kind);
    const requires = ruleOf(kind).requires;
    if (requires !== null) visit(requires.kind);
    visiting.delete(kind);
    ordered.push(kind);
  };
  for (const kind of CUT_KINDS) visit(kind);
  return ordered.filter((kind) => kinds.includes(kind));
}
