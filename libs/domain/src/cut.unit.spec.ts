import { changesBetween, compareChanges, entitiesAt, entityAt, factHistory, factsAt, inValidity } from './cut';
import { fold, foldBefore } from './evolve';
import { after, archive, at, before, edge, entity, given, merge, relation, retro } from './testing/given';
import type { ChangeView, FactView } from './views';

/**
 * A small history (record time on the left):
 *   MON 09:00  alice, bob, acme, beta; works_at is `one`
 *   MON 10:00  f-a: alice works_at acme, valid [MON, ∞)
 *   MON 10:00  f-b: bob works_at acme, valid [MON, FRI)
 *   TUE 10:00  f-age: alice age 30 (literal), valid [TUE, ∞)
 *   THU 10:00  f-beta: alice works_at beta, valid [WED, ∞)  → supersedes f-a to [MON, WED)
 *   THU 10:00  f-b archived (same record time as the supersession)
 *   FRI 10:00  f-age retro-corrected to valid [MON, ∞)
 */
function history() {
  return given([
    entity('alice', 'Alice', { recordedAt: at('MON', '09:00') }),
    entity('bob', 'Bob', { recordedAt: at('MON', '09:00') }),
    entity('acme', 'Acme', { recordedAt: at('MON', '09:00') }),
    entity('beta', 'Beta', { recordedAt: at('MON', '09:00') }),
    relation('works_at', 'one', at('MON', '09:00')),
    edge('alice', 'works_at', 'acme', { factId: 'f-a', validFrom: at('MON'), recordedAt: at('MON', '10:00') }),
    edge('bob', 'works_at', 'acme', { factId: 'f-b', validFrom: at('MON'), validTo: at('FRI'), recordedAt: at('MON', '10:00') }),
    edge('alice', 'age', { literal: 30, datatype: 'number' }, { factId: 'f-age', validFrom: at('TUE'), recordedAt: at('TUE', '10:00') }),
    edge('alice', 'works_at', 'beta', { factId: 'f-beta', validFrom: at('WED'), recordedAt: at('THU', '10:00') }),
    archive('f-b', at('THU', '10:00')),
    retro('f-age', { validFrom: at('MON'), recordedAt: at('FRI', '10:00') }),
  ]);
}

const ids = (facts: FactView[]) => facts.map((f) => f.factId);

describe('fold', () => {
  const s = history();

  it('folds up to and including the record time', () => {
    expect(fold(s.log, before(at('MON', '10:00'))).facts.size).toBe(0);
    expect(fold(s.log, at('MON', '10:00')).facts.size).toBe(2);
    expect(fold(s.log, at('MON', '10:00')).latestRecordedAt).toBe(at('MON', '10:00'));
    expect(fold(s.log).eventCount).toBe(s.log.length);
  });

  it('foldBefore folds strictly before the record time', () => {
    expect(foldBefore(s.log, at('MON', '10:00')).facts.size).toBe(0);
    expect(foldBefore(s.log, after(at('MON', '10:00'))).facts.size).toBe(2);
  });

  it('a record-time cut equals folding the prefix of the log recorded at or before it', () => {
    const r = at('TUE', '10:00');
    const n = s.log.findIndex((e) => e.meta.recordedAt > r);
    expect(fold(s.log, r)).toEqual(fold(s.log.slice(0, n)));
  });
});

describe('factsAt', () => {
  const s = history();
  const now = () => s.at(at('SUN'));

  it('As-World@TUE (validAt TUE, recordedAt now): acme for alice, bob still archived away', () => {
    expect(factsAt(now(), at('TUE'))).toEqual([
      {
        factId: 'f-a',
        src: 'alice',
        rel: 'works_at',
        dst: 'acme',
        validFrom: at('MON'),
        validTo: at('WED'),
        recordedFrom: at('THU', '10:00'),
        recordedTo: null,
        confidence: null,
        evidence: [],
        source: null,
      },
      expect.objectContaining({ factId: 'f-age', dst: { literal: 30, datatype: 'number' }, validFrom: at('MON'), recordedFrom: at('FRI', '10:00') }),
    ]);
  });

  it('As-Recorded@TUE 12:00 (what we believed then about then)', () => {
    const r = at('TUE', '12:00');
    expect(factsAt(s.at(r), r)).toEqual([
      expect.objectContaining({ factId: 'f-a', validTo: null, recordedFrom: at('MON', '10:00'), recordedTo: null }),
      expect.objectContaining({ factId: 'f-age', validFrom: at('TUE'), recordedFrom: at('TUE', '10:00') }),
      expect.objectContaining({ factId: 'f-b', validTo: at('FRI') }),
    ]);
  });

  it('answers are sorted by factId', () => {
    expect(ids(factsAt(s.at(at('TUE', '12:00')), '*'))).toEqual(['f-a', 'f-age', 'f-b']);
  });

  it('validAt "*" lists every version in the record cut, whatever its validity', () => {
    expect(ids(factsAt(now(), '*'))).toEqual(['f-a', 'f-age', 'f-beta']);
    expect(ids(factsAt(s.at(before(at('THU', '10:00'))), '*'))).toEqual(['f-a', 'f-age', 'f-b']);
  });

  it('record time exactly at a change: the closed versions are out and the new ones in', () => {
    const thu = s.at(at('THU', '10:00'));
    expect(ids(factsAt(thu, at('TUE')))).toEqual(['f-a', 'f-age']);
    expect(factsAt(thu, at('TUE'))[0]).toMatchObject({ validTo: at('WED') });
    expect(ids(factsAt(thu, at('WED')))).toEqual(['f-age', 'f-beta']);
  });

  it('validity exactly at a retro-corrected bound', () => {
    expect(ids(factsAt(s.at(before(at('FRI', '10:00'))), before(at('TUE')), { rel: 'age' }))).toEqual([]);
    expect(ids(factsAt(s.at(at('FRI', '10:00')), before(at('TUE')), { rel: 'age' }))).toEqual(['f-age']);
    expect(ids(factsAt(s.at(at('FRI', '10:00')), at('MON'), { rel: 'age' }))).toEqual(['f-age']);
    expect(ids(factsAt(s.at(at('FRI', '10:00')), before(at('MON')), { rel: 'age' }))).toEqual([]);
  });

  it.each([
    [{ rel: 'works_at' }, ['f-a', 'f-b']],
    [{ rel: 'age' }, ['f-age']],
    [{ src: 'bob' }, ['f-b']],
    [{ src: 'alice', rel: 'works_at' }, ['f-a']],
    [{ dst: 'acme' }, ['f-a', 'f-b']],
    [{ dst: '30' }, ['f-age']],
    [{ dst: 'beta' }, []],
    [{ src: 'nobody' }, []],
    [{ rel: 'works_at', dst: 'acme', src: 'bob' }, ['f-b']],
  ])('filter %j', (filter, expected) => {
    expect(ids(factsAt(s.at(at('WED')), at('WED'), filter))).toEqual(expected);
  });

  it('an empty record interval [r, r) is in no cut', () => {
    const t = given([
      entity('a', 'A', { recordedAt: at('MON') }),
      entity('b', 'B', { recordedAt: at('MON') }),
      edge('a', 'r', 'b', { factId: 'f', validFrom: at('MON'), recordedAt: at('TUE') }),
      edge('a', 'r', 'b', { factId: 'f', confidence: 0.5, recordedAt: at('TUE') }),
    ]);
    expect(factHistory(t.state, 'f')!.map((v) => [v.recordedFrom, v.recordedTo, v.confidence])).toEqual([
      [at('TUE'), at('TUE'), null],
      [at('TUE'), null, 0.5],
    ]);
    expect(factsAt(t.at(at('TUE')), '*').map((f) => f.confidence)).toEqual([0.5]);
    expect(factsAt(t.at(before(at('TUE'))), '*')).toEqual([]);
  });
});

describe('factHistory', () => {
  it('lists every version oldest first; null for an unknown fact', () => {
    const s = history();
    expect(factHistory(s.state, 'nope')).toBeNull();
    expect(factHistory(s.state, 'f-a')!.map((v) => [v.validFrom, v.validTo, v.recordedFrom, v.recordedTo])).toEqual([
      [at('MON'), null, at('MON', '10:00'), at('THU', '10:00')],
      [at('MON'), at('WED'), at('THU', '10:00'), null],
    ]);
    // as believed at an earlier record time
    expect(factHistory(s.at(at('WED')), 'f-a')!.map((v) => v.recordedTo)).toEqual([null]);
    expect(factHistory(s.at(at('MON', '09:00')), 'f-a')).toBeNull();
  });

  it('shows the canonical src/dst of the cut', () => {
    const s = given([
      entity('a1', 'Alice', { recordedAt: at('MON') }),
      entity('a2', 'Ally', { recordedAt: at('MON') }),
      entity('acme', 'Acme', { recordedAt: at('MON') }),
      edge('a2', 'works_at', 'acme', { factId: 'f', recordedAt: at('MON') }),
      merge('a2', 'a1', at('TUE')),
    ]);
    expect(factHistory(s.at(at('MON')), 'f')![0]!.src).toBe('a2');
    expect(factHistory(s.at(at('TUE')), 'f')![0]!.src).toBe('a1');
  });
});

describe('changesBetween', () => {
  const s = history();

  it('lists versions opened or closed with record time in [from, to), closings first at equal times', () => {
    const changes = changesBetween(s.state, at('THU', '10:00'), at('FRI', '10:00'));
    expect(changes.map((c) => [c.change, c.at, c.version.factId, c.version.recordedFrom])).toEqual([
      ['closed', at('THU', '10:00'), 'f-a', at('MON', '10:00')],
      ['opened', at('THU', '10:00'), 'f-a', at('THU', '10:00')],
      ['closed', at('THU', '10:00'), 'f-b', at('MON', '10:00')],
      ['opened', at('THU', '10:00'), 'f-beta', at('THU', '10:00')],
    ]);
  });

  it('includes from and excludes to', () => {
    expect(changesBetween(s.state, after(at('THU', '10:00')), at('FRI', '10:00'))).toEqual([]);
    expect(changesBetween(s.state, at('FRI', '10:00'), after(at('FRI', '10:00'))).map((c) => [c.change, c.version.factId])).toEqual([
      ['closed', 'f-age'],
      ['opened', 'f-age'],
    ]);
    expect(changesBetween(s.state, at('MON'), at('MON', '10:00'))).toEqual([]);
    expect(changesBetween(s.state, at('MON'), after(at('MON', '10:00'))).map((c) => [c.change, c.version.factId])).toEqual([
      ['opened', 'f-a'],
      ['opened', 'f-b'],
    ]);
  });
});

describe('inValidity', () => {
  it.each([
    [at('MON'), at('WED'), before(at('MON')), false],
    [at('MON'), at('WED'), at('MON'), true],
    [at('MON'), at('WED'), before(at('WED')), true],
    [at('MON'), at('WED'), at('WED'), false],
    [at('MON'), null, '9999-12-31T23:59:59.999Z', true],
    [at('MON'), at('WED'), '*', true],
  ])('[%s, %s) contains %s: %s', (from, to, t, expected) => {
    expect(inValidity(from, to, t)).toBe(expected);
  });
});

describe('compareChanges', () => {
  const T = '2024-05-06T00:00:00.000Z';
  const opened = (validFrom: string, recordedTo: string | null): ChangeView => ({
    change: 'opened',
    at: T,
    version: {
      factId: 'f',
      src: 'a',
      rel: 'r',
      dst: 'b',
      validFrom,
      validTo: null,
      recordedFrom: T,
      recordedTo,
      confidence: null,
      evidence: [],
      source: null,
    },
  });

  it('orders versions opened at one record time totally, whatever the input order: the one replaced within the instant first', () => {
    const replacedAtOnce = opened('2024-05-08T00:00:00.000Z', T);
    const current = opened('2024-05-07T12:00:00.000Z', null);
    expect([current, replacedAtOnce].sort(compareChanges)).toEqual([replacedAtOnce, current]);
    expect([replacedAtOnce, current].sort(compareChanges)).toEqual([replacedAtOnce, current]);
    const earlierValidity = opened('2024-05-01T00:00:00.000Z', T);
    expect([replacedAtOnce, earlierValidity].sort(compareChanges)).toEqual([earlierValidity, replacedAtOnce]);
  });
});

describe('entitiesAt', () => {
  const s = given([
    entity('alice', 'Alice', { aliases: ['Ally'], types: ['person'], recordedAt: at('MON', '09:00') }),
    entity('smith', 'Alice  Smith', { types: ['Person'], recordedAt: at('MON', '09:00') }),
    entity('bob', 'Bob', { types: ['person'], recordedAt: at('MON', '09:00') }),
    entity('robert', 'Robert', { recordedAt: at('MON', '09:00') }),
    entity('acme', 'Acme', { types: ['org'], recordedAt: at('MON', '09:00') }),
    merge('bob', 'robert', at('TUE', '09:00')),
    entity('acme', 'Acme', { aliases: ['ACME Corp'], recordedAt: at('TUE', '09:00') }),
  ]);
  const ids = (recordedAt: string, filter: Parameters<typeof entitiesAt>[1]) => entitiesAt(s.at(recordedAt), filter).map((e) => e.entityId);
  const [mon, now] = [at('MON', '12:00'), at('SUN')];

  it('lists the canonical entities, sorted by id, each as entityAt shows it', () => {
    expect(ids(now, {})).toEqual(['acme', 'alice', 'robert', 'smith']);
    expect(ids(mon, {})).toEqual(['acme', 'alice', 'bob', 'robert', 'smith']);
    expect(ids(before(at('MON', '09:00')), {})).toEqual([]);
    expect(entitiesAt(s.at(now), {})).toEqual(['acme', 'alice', 'robert', 'smith'].map((id) => entityAt(s.at(now), id)));
  });

  it('finds names and aliases as normalised keys: case-folded, whitespace collapsed; exactly or as a prefix', () => {
    expect(ids(now, { name: ' aLiCe ' })).toEqual(['alice']);
    expect(ids(now, { name: 'ally' })).toEqual(['alice']);
    expect(ids(now, { name: 'alice smith' })).toEqual(['smith']);
    expect(ids(now, { name: 'ali' })).toEqual([]);
    expect(ids(now, { name: 'ALI', match: 'prefix' })).toEqual(['alice', 'smith']);
    expect(ids(now, { name: 'acme  c', match: 'prefix' })).toEqual(['acme']);
  });

  it('finds a merged entity by its old name as the entity it was merged into, from the merge on', () => {
    expect(ids(now, { name: 'Bob' })).toEqual(['robert']);
    expect(ids(mon, { name: 'Bob' })).toEqual(['bob']);
    expect(ids(mon, { name: 'ACME Corp' })).toEqual([]);
  });

  it('filters by type (normalised too), and pages by id', () => {
    expect(ids(now, { type: 'PERSON' })).toEqual(['alice', 'robert', 'smith']);
    expect(ids(now, { type: 'person', name: 'a', match: 'prefix' })).toEqual(['alice', 'smith']);
    expect(ids(now, { after: 'alice', limit: 2 })).toEqual(['robert', 'smith']);
    expect(ids(now, { after: 'zzz' })).toEqual([]);
  });
});
