import { type CutKind, type RecordRule, type Requirement, TOPIC_VISIBILITY, type Translations, type Uniform, ruleOf } from '@memotrace/domain';

/**
 * The read models' translation of the cut (libs/domain/src/visibility.ts): WHERE predicates
 * generated from the rules, so no query writes a rule of its own. The forms are the
 * index-friendly ones: a record interval is `tstzrange(recorded_from, recorded_to, '[)') @> r`
 * where GiST indexes serve it (event and episode versions, schema.ts) and two comparisons
 * elsewhere (fact versions), a record time `recorded_from <= r` (btree), a member is
 * looked up by its key (memory_id, id, ...).
 */

/**
 * A validity interval's columns. `range`: `tstzrange(from, to, '[)') @> t`, for columns a CHECK
 * keeps `from < to` (fact validities); `bounds`: `from <= t AND (to IS NULL OR t < to)`, for spans
 * nothing constrains (an event's span, an episode's window may be empty or reversed, where
 * tstzrange would raise).
 */
export interface SqlInterval {
  from: string;
  to: string;
  form: 'range' | 'bounds';
}

type SqlParts = Uniform<{ recordedFrom: string; recordedTo: string; validity: SqlInterval; members: string }>;

interface SqlTable {
  table: string;
  /** The id column a member list names (null: nothing names items of the kind). */
  id: string | null;
  /**
   * How a record interval is asked (`interval` rules): `range` (default), the form the GiST indexes of
   * the event and episode versions serve; `bounds`, two comparisons, for fact versions, which have no
   * such index: the planner estimates those from the columns' statistics (a range built from two
   * columns it cannot), so it picks the right plan, e.g. walking the key in order for a page of facts.
   */
  recordForm?: SqlInterval['form'];
}

/** Where each kind's rows keep what its rule reads. */
export const CUT_TABLES: Translations<SqlParts, { [K in CutKind]: SqlTable }> = {
  fact: {
    table: 'rm_fact_versions',
    id: 'fact_id',
    recordForm: 'bounds',
    recordedFrom: 'recorded_from',
    recordedTo: 'recorded_to',
    validity: { from: 'valid_from', to: 'valid_to', form: 'range' },
  },
  event: {
    table: 'rm_event_versions',
    id: 'event_id',
    recordedFrom: 'recorded_from',
    recordedTo: 'recorded_to',
    validity: { from: 'span_from', to: 'span_to', form: 'bounds' },
    members: 'includes_facts',
  },
  episode: {
    table: 'rm_episode_versions',
    id: 'episode_id',
    recordedFrom: 'recorded_from',
    recordedTo: 'recorded_to',
    validity: { from: 'window_from', to: 'window_to', form: 'bounds' },
    members: 'events',
  },
  mention: { table: 'rm_mentions', id: 'mention_id', recordedFrom: 'recorded_from' },
  entity: { table: 'rm_entities', id: 'entity_id', recordedFrom: 'recorded_from' },
  merge: { table: 'rm_entity_merges', id: null, recordedFrom: 'recorded_at' },
};

/** The cut as SQL expressions (parameter placeholders such as `$2`): `validAt` null for '*'. */
export interface SqlCut {
  memoryId: string;
  recordedAt: string;
  validAt: string | null;
}

/** A translation of any kind, read loosely (the parts its rule does not read are absent). */
type AnySqlTable = SqlTable & { recordedFrom: string; recordedTo?: string; validity?: SqlInterval; members?: string };

const tableOf = (kind: CutKind): AnySqlTable => CUT_TABLES[kind] as AnySqlTable;

const column = (alias: string, name: string): string => (alias === '' ? name : `${alias}.${name}`);

/**
 * The rows of `kind` (table alias `alias`, '' for none) in the cut: the memory, the record rule,
 * the validity (unless validAt is '*'), and the requirement on the members. `listed`: the
 * row's `listedMembers` when the query computes them anyway (for a rule that lists only the
 * members that count): the requirement then reads them instead of asking every member again.
 */
export function cutPredicate(kind: CutKind, alias: string, cut: SqlCut, listed?: string): string {
  return [`${column(alias, 'memory_id')} = ${cut.memoryId}`, ...ruleTerms(kind, alias, cut, 1, listed)].join(' AND ');
}

/** The record rule of `kind` over a row `alias` whose record-time columns are named like the kind's (e.g. an entity's labels, likewise). */
export function recordPredicate(kind: CutKind, alias: string, recordedAt: string): string {
  return recordTerm(ruleOf(kind).record, alias, tableOf(kind), recordedAt);
}

/**
 * The members that answers list of a row `alias` of `kind` at the cut's record time: its member
 * list itself, or (`lists: 'counting'`) an array of those that count, in the list's order.
 */
export function listedMembers(kind: CutKind, alias: string, cut: SqlCut): string {
  const requires = requirementOf(kind);
  const members = column(alias, tableOf(kind).members!);
  if (requires.lists === 'all') return members;
  const counts = memberCounts(requires.kind, 'x1.id', cut, 1);
  return `ARRAY(SELECT x1.id FROM unnest(${members}) WITH ORDINALITY AS x1(id, ord) WHERE ${counts} ORDER BY x1.ord)`;
}

function requirementOf(kind: CutKind): Requirement {
  const requires = ruleOf(kind).requires;
  if (requires === null) throw new Error(`the cut of ${kind} requires no members`);
  return requires;
}

/** The rule's terms after the memory: record, validity, requirement (members at `depth` get aliases x<depth>, m<depth>). */
function ruleTerms(kind: CutKind, alias: string, cut: SqlCut, depth: number, listed?: string): string[] {
  const rule = ruleOf(kind);
  const table = tableOf(kind);
  const terms = [recordTerm(rule.record, alias, table, cut.recordedAt)];
  if (rule.validity !== null && cut.validAt !== null) terms.push(validityTerm(alias, table.validity!, cut.validAt));
  if (rule.requires !== null) {
    if (alias === '') throw new Error(`the cut of ${kind} names its members: give its table an alias`);
    const members = column(alias, table.members!);
    const x = `x${depth}`;
    if (listed !== undefined) {
      if (rule.requires.lists !== 'counting') throw new Error(`${kind} lists all its members: its listed members do not say which count`);
      terms.push(rule.requires.quantifier === 'every' ? `cardinality(${listed}) = cardinality(${members})` : `cardinality(${listed}) > 0`);
      return terms;
    }
    terms.push(
      rule.requires.quantifier === 'every'
        ? `NOT EXISTS (SELECT 1 FROM unnest(${members}) AS ${x}(id) WHERE NOT ${memberCounts(rule.requires.kind, `${x}.id`, cut, depth)})`
        : `EXISTS (SELECT 1 FROM unnest(${members}) AS ${x}(id) WHERE ${memberCounts(rule.requires.kind, `${x}.id`, cut, depth)})`,
    );
  }
  return terms;
}

/** A member counts: a row of its kind with its id is in the cut at validAt '*' (looked up by key). */
function memberCounts(kind: CutKind, id: string, cut: SqlCut, depth: number): string {
  const member = tableOf(kind);
  if (member.id === null) throw new Error(`members of kind ${kind} have no id column`);
  const m = `m${depth}`;
  const terms = [`${m}.memory_id = ${cut.memoryId}`, `${m}.${member.id} = ${id}`, ...ruleTerms(kind, m, { ...cut, validAt: null }, depth + 1)];
  return `EXISTS (SELECT 1 FROM ${member.table} ${m} WHERE ${terms.join(' AND ')})`;
}

/**
 * TOPIC_VISIBILITY over `rm_topic_versions` (alias `alias`): `members`, the array of its members that
 * count at the cut's record time (each by its own kind's rule, in the topic's order), and `where`, the
 * rule, which reads `listed` (that array, computed once per row by the query).
 */
export function topicCut(alias: string, cut: SqlCut, listed: string): { members: string; where: string } {
  const x = 'x1';
  const counts = TOPIC_VISIBILITY.requires.kinds.map((kind) => `(${x}.kind = '${kind}' AND ${memberCounts(kind, `${x}.id`, cut, 1)})`).join(' OR ');
  const members =
    `ARRAY(SELECT ${x}.id FROM unnest(${alias}.members, ${alias}.member_kinds) WITH ORDINALITY AS ${x}(id, kind, ord) ` +
    `WHERE ${counts} ORDER BY ${x}.ord)`;
  const terms = [
    `${alias}.memory_id = ${cut.memoryId}`,
    intervalTerm(`${alias}.recorded_from`, `${alias}.recorded_to`, 'range', cut.recordedAt),
    ...(cut.validAt === null ? [] : [intervalTerm(`${alias}.window_from`, `${alias}.window_to`, 'bounds', cut.validAt)]),
    `cardinality(${listed}) > 0`,
  ];
  return { members, where: terms.join(' AND ') };
}

function recordTerm(record: RecordRule, alias: string, table: AnySqlTable, at: string): string {
  const from = column(alias, table.recordedFrom);
  if (record === 'since') return `${from} <= ${at}::timestamptz`;
  return intervalTerm(from, column(alias, table.recordedTo!), table.recordForm ?? 'range', at);
}

function validityTerm(alias: string, validity: SqlInterval, at: string): string {
  return intervalTerm(column(alias, validity.from), column(alias, validity.to), validity.form, at);
}

/** `from <= at < to` (`to` null: open) in the form asked for. */
function intervalTerm(from: string, to: string, form: SqlInterval['form'], at: string): string {
  if (form === 'range') return `tstzrange(${from}, ${to}, '[)') @> ${at}::timestamptz`;
  return `${from} <= ${at}::timestamptz AND (${to} IS NULL OR ${at}::timestamptz < ${to})`;
}
