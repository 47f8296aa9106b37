import { factsAt } from './cut';
import { commandsOfLog } from './export';
import { durationMillis, retentionErasures } from './retention';
import type { CommandInput } from './testing/given';
import { at, bare, before, edge, entity, given, plusMs } from './testing/given';

const DAY = 24 * 60 * 60 * 1000;

const defineRelation = (rel: string, retention?: string | null, recordedAt = at('MON')): CommandInput =>
  ({ op: 'DEFINE_RELATION', rel, cardinality: 'many', recordedAt, ...(retention !== undefined ? { retention } : {}) }) as CommandInput;

const literal = (value: string) => ({ literal: value, datatype: 'string' as const });

/** Alice lives in Paris (relation with a retention of a day), and works at Acme (none), both recorded Monday. */
function livesInParis(retention: string | null = 'P1D') {
  return given([
    defineRelation('lives_in', retention),
    entity('alice', 'Alice', { recordedAt: at('MON') }),
    entity('acme', 'Acme', { recordedAt: at('MON') }),
    edge('alice', 'lives_in', literal('Paris'), { factId: 'home', validFrom: at('MON'), source: 'Alice said so', recordedAt: at('MON') }),
    edge('alice', 'works_at', 'acme', { factId: 'job', validFrom: at('MON'), source: 'HR file', recordedAt: at('MON') }),
  ]);
}

describe('durationMillis', () => {
  it.each([
    ['P1W', 7 * DAY],
    ['P30D', 30 * DAY],
    ['PT12H', DAY / 2],
    ['P1DT6H30M15S', DAY + ((6 * 60 + 30) * 60 + 15) * 1000],
    ['PT90S', 90_000],
  ])('%s is %d ms', (duration, ms) => expect(durationMillis(duration)).toBe(ms));

  it('refuses what is not a retention duration', () => {
    expect(() => durationMillis('P1Y')).toThrow(/not a retention duration/);
  });
});

describe('DEFINE_RELATION retention', () => {
  it('records the retention, and keeps records of relations without one as they were', () => {
    const s = given();
    expect(bare(s.when(defineRelation('lives_in', 'P30D')).records)).toEqual([
      { type: 'RelationDefined', data: { rel: 'lives_in', cardinality: 'many', retention: 'P30D' } },
    ]);
    expect(bare(s.when(defineRelation('works_at')).records)).toEqual([{ type: 'RelationDefined', data: { rel: 'works_at', cardinality: 'many' } }]);
    expect(s.state.retentions).toEqual(new Map([['lives_in', 'P30D']]));
  });

  it('keeps the retention when a later declaration omits it, and removes it on null', () => {
    const s = given([defineRelation('lives_in', 'P30D')]);
    expect(s.when(defineRelation('lives_in')).results[0]).toMatchObject({ status: 'unchanged' });
    expect(s.when(defineRelation('lives_in', 'P30D')).results[0]).toMatchObject({ status: 'unchanged' });
    expect(bare(s.when(defineRelation('lives_in', 'P7D')).records)[0]!.data).toEqual({ rel: 'lives_in', cardinality: 'many', retention: 'P7D' });
    expect(bare(s.when(defineRelation('lives_in', null)).records)[0]!.data).toEqual({ rel: 'lives_in', cardinality: 'many', retention: null });
    expect(s.state.retentions.size).toBe(0);
    expect(s.when(defineRelation('lives_in', null)).results[0]).toMatchObject({ status: 'unchanged' });
  });

  it('exports what imports back to the same retentions, a removal included', () => {
    const s = given([defineRelation('lives_in', 'P30D'), defineRelation('lives_in', null), defineRelation('lives_in', 'PT1H')]);
    const exported = commandsOfLog(s.log).filter((c) => c.op === 'DEFINE_RELATION');
    expect(exported.map((c) => ('retention' in c ? c.retention : 'absent'))).toEqual(['P30D', null, 'PT1H']);
    const imported = given(exported.map((c) => c as CommandInput));
    expect(imported.state.retentions).toEqual(s.state.retentions);
    expect(bare(imported.log)).toEqual(bare(s.log));
  });
});

describe('retentionErasures', () => {
  const due = at('TUE'); // Monday + P1D

  it('erases nothing before the retention has elapsed, and the fact exactly when it has', () => {
    const s = livesInParis();
    expect(retentionErasures(s.state, before(due))).toEqual([]);
    expect(retentionErasures(s.state, due)).toEqual([
      {
        op: 'ERASE',
        commandId: expect.stringMatching(/^retention-[0-9a-f]{32}$/),
        actor: 'retention',
        reason: `retention P1D of relation lives_in elapsed at ${due}`,
        subject: { factId: 'home' },
      },
    ]);
  });

  it('erases by the path of ERASE: content gone at every record time, the unrelated fact kept, the second sweep writes nothing', () => {
    const s = livesInParis();
    const first = retentionErasures(s.state, due);
    const { records, results } = s.when(first, due);
    expect(results[0]).toMatchObject({ status: 'applied', ids: { factId: 'home' } });
    expect(records[0]!.meta).toMatchObject({ actor: 'retention' });
    for (const state of [s.at(at('MON')), s.at()]) {
      const facts = factsAt(state, '*', {});
      expect(facts.find((f) => f.factId === 'home')).toMatchObject({ dst: null, source: null, erased: true });
      expect(facts.find((f) => f.factId === 'job')).toMatchObject({ dst: 'acme', source: 'HR file' });
    }
    expect(retentionErasures(s.state, plusMs(due, 10 * DAY))).toEqual([]);
    // A sweep racing the first (same content, same command id) is a duplicate: nothing more in the log.
    const length = s.log.length;
    expect(s.when(first, due).results[0]).toMatchObject({ status: 'duplicate' });
    expect(s.log.length).toBe(length);
  });

  it('counts from the oldest content not yet erased: a correction does not extend it, content written after an erasure gets its own', () => {
    const s = livesInParis();
    s.when(edge('alice', 'lives_in', literal('Paris'), { factId: 'home', source: 'Alice again', recordedAt: at('MON', '12:00') }));
    expect(retentionErasures(s.state, due).map((c) => c.subject)).toEqual([{ factId: 'home' }]);
    s.when(retentionErasures(s.state, due), due);
    s.when(edge('alice', 'lives_in', literal('Lyon'), { factId: 'home', source: 'moved', recordedAt: at('WED') }));
    expect(retentionErasures(s.state, before(at('THU')))).toEqual([]);
    const again = retentionErasures(s.state, at('THU'));
    expect(again).toEqual([expect.objectContaining({ subject: { factId: 'home' } })]);
    expect(again[0]!.commandId).not.toBe(retentionErasures(livesInParis().state, due)[0]!.commandId);
  });

  it('follows the relation’s latest declaration: a removed retention erases nothing, a shorter one sooner', () => {
    const removed = livesInParis();
    removed.when(defineRelation('lives_in', null, at('MON', '01:00')));
    expect(retentionErasures(removed.state, at('SUN'))).toEqual([]);
    const shorter = livesInParis('P30D');
    expect(retentionErasures(shorter.state, at('SUN'))).toEqual([]);
    shorter.when(defineRelation('lives_in', 'PT1H', at('MON', '01:00')));
    expect(retentionErasures(shorter.state, at('MON', '01:00'))).toHaveLength(1);
  });

  it('skips facts whose content an erasure of their entity already took', () => {
    const s = livesInParis();
    s.when({ op: 'ERASE', subject: { entityId: 'alice' }, reason: 'asked to be forgotten', recordedAt: at('MON', '06:00') } as CommandInput);
    expect(retentionErasures(s.state, at('SUN'))).toEqual([]);
  });
});
