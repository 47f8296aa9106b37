import { CUT_KINDS, VISIBILITY } from '@memotrace/domain';
import { CUT_TABLES, cutPredicate, listedMembers, recordPredicate } from './cut-sql';

/**
 * The SQL the rules translate to keeps the forms the read models' indexes serve (schema.ts):
 * record intervals as `tstzrange(recorded_from, recorded_to, '[)') @> r` (GiST on event and
 * episode versions), a fact version's as plain comparisons (no such index: the planner estimates
 * them from column statistics), record times as `recorded_from <= r` (btree), members looked up by key.
 * The answers these predicates give are checked against the domain's reference cut by
 * services/query/src/cut-conformance.int.spec.ts.
 */
const at = { memoryId: '$1', recordedAt: '$2', validAt: '$3' };
const star = { ...at, validAt: null };
const RANGE = (alias: string, from = 'recorded_from', to = 'recorded_to', t = '$2') =>
  `tstzrange(${alias}${from}, ${alias}${to}, '[)') @> ${t}::timestamptz`;
const BOUNDS = (alias: string, t = '$2') =>
  `${alias}recorded_from <= ${t}::timestamptz AND (${alias}recorded_to IS NULL OR ${t}::timestamptz < ${alias}recorded_to)`;
const FACT_BELIEVED = (m: string, x: string) =>
  `NOT EXISTS (SELECT 1 FROM rm_fact_versions ${m} WHERE ${m}.memory_id = $1 AND ${m}.fact_id = ${x}.id AND ${BOUNDS(`${m}.`)})`;

describe('the cut in SQL, generated from the rules', () => {
  it('facts: the record interval by plain comparisons, the validity as a range', () => {
    expect(cutPredicate('fact', '', at)).toBe(`memory_id = $1 AND ${BOUNDS('')} AND ${RANGE('', 'valid_from', 'valid_to', '$3')}`);
    expect(cutPredicate('fact', 'f', star)).toBe(`f.memory_id = $1 AND ${BOUNDS('f.')}`);
  });

  it('events: record interval, span by plain comparisons, and every included fact believed (looked up by key)', () => {
    expect(cutPredicate('event', 'ev', at)).toBe(
      `ev.memory_id = $1 AND ${RANGE('ev.')} AND ev.span_from <= $3::timestamptz AND (ev.span_to IS NULL OR $3::timestamptz < ev.span_to)` +
        ` AND NOT EXISTS (SELECT 1 FROM unnest(ev.includes_facts) AS x1(id) WHERE ${FACT_BELIEVED('m1', 'x1')})`,
    );
    expect(listedMembers('event', 'ev', at)).toBe('ev.includes_facts');
  });

  it('episodes: some event visible at any validity, and only those listed, in order', () => {
    const eventVisible = (x: string) =>
      `EXISTS (SELECT 1 FROM rm_event_versions m1 WHERE m1.memory_id = $1 AND m1.event_id = ${x}.id AND ${RANGE('m1.')}` +
      ` AND NOT EXISTS (SELECT 1 FROM unnest(m1.includes_facts) AS x2(id) WHERE ${FACT_BELIEVED('m2', 'x2')}))`;
    expect(cutPredicate('episode', 'ep', star)).toBe(
      `ep.memory_id = $1 AND ${RANGE('ep.')} AND EXISTS (SELECT 1 FROM unnest(ep.events) AS x1(id) WHERE ${eventVisible('x1')})`,
    );
    expect(listedMembers('episode', 'ep', star)).toBe(
      `ARRAY(SELECT x1.id FROM unnest(ep.events) WITH ORDINALITY AS x1(id, ord) WHERE ${eventVisible('x1')} ORDER BY x1.ord)`,
    );
  });

  it('mentions, entities (and their labels) and merges: recorded at or before r', () => {
    expect(cutPredicate('mention', '', at)).toBe('memory_id = $1 AND recorded_from <= $2::timestamptz');
    expect(cutPredicate('entity', 'e', at)).toBe('e.memory_id = $1 AND e.recorded_from <= $2::timestamptz');
    expect(recordPredicate('entity', 'l', '$3')).toBe('l.recorded_from <= $3::timestamptz');
    expect(recordPredicate('merge', '', '$2')).toBe('recorded_at <= $2::timestamptz');
  });

  it('with the listed members at hand, the requirement reads them (some: any listed; every: all listed)', () => {
    expect(cutPredicate('episode', 'ep', star, 'listed.events')).toBe(`ep.memory_id = $1 AND ${RANGE('ep.')} AND cardinality(listed.events) > 0`);
    expect(() => cutPredicate('event', 'ev', star, 'listed.facts')).toThrow(/lists all its members/);
  });

  it('a kind that names members needs a table alias', () => {
    expect(() => cutPredicate('event', '', at)).toThrow(/alias/);
  });

  it('translates every kind, with exactly the parts its rule reads', () => {
    for (const kind of CUT_KINDS) {
      const rule = VISIBILITY[kind];
      const table = CUT_TABLES[kind] as { recordedTo?: string; validity?: unknown; members?: string };
      expect([kind, table.recordedTo !== undefined, table.validity !== undefined, table.members !== undefined]).toEqual([
        kind,
        rule.record === 'interval',
        rule.validity !== null,
        rule.requires !== null,
      ]);
    }
  });
});
