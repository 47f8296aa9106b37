import { type EntityFilter, type Instant, type MemoryRecord, entitiesAt, fold } from '@memotrace/domain';
import type { Projector } from '@memotrace/projection';
import { type Harness, MemoryWriter, openHarness } from './testing/pg-harness';
import { readAfterErasures } from './testing/read-after-erasure';
import { ERASURE_STORY } from './testing/erasure-story';
import { randomLog } from './testing/random-log';
import { around, expectSameAsReplay, plusMs, validBounds } from './testing/replay-compare';

/**
 * The SQL answers equal the replay answers (fold + the domain's cut functions)
 * on stories with supersession, merges, archives, retro-corrections and event
 * visibility, at cuts on and around every interval boundary.
 */
const DAYS = { SUN: '2024-05-05', MON: '2024-05-06', TUE: '2024-05-07', WED: '2024-05-08', THU: '2024-05-09', FRI: '2024-05-10', SAT: '2024-05-11' };
const at = (day: 'SUN' | 'MON' | 'TUE' | 'WED' | 'THU' | 'FRI' | 'SAT', hhmm = '00:00'): Instant => `${DAYS[day]}T${hhmm}:00.000Z`;
const LATER = '2024-06-01T00:00:00.000Z';

let harness: Harness;
let projector: Projector;

beforeAll(async () => {
  harness = await openHarness();
  projector = await harness.startProjector({ batchSize: 50 });
});

afterAll(async () => {
  await harness?.close();
});

async function projected(position: number | null): Promise<void> {
  if (position !== null) expect(await projector.waitForPosition(position, 10_000)).toBe(true);
}

/** Compares at every record time of the log (and 1 ms either side), at every validity bound (and either side) and '*'. */
async function expectReplayEverywhere(
  memoryId: string,
  extra: { filters?: { src?: string; rel?: string; dst?: string }[]; entityIds?: string[] } = {},
): Promise<MemoryRecord[]> {
  const log = await harness.log(memoryId);
  const recordTimes = [...new Set(log.map((e) => e.meta.recordedAt))];
  const recordedAts = [...around(recordTimes), '2000-01-01T00:00:00.000Z', LATER];
  const validAts = ['*' as const, ...around(validBounds(log)), LATER];
  const windows: [Instant, Instant][] = [];
  for (const from of around(recordTimes)) for (const to of around(recordTimes)) if (from <= to) windows.push([from, to]);
  const compared = await expectSameAsReplay(harness.queries, memoryId, log, { recordedAts, validAts, windows, ...extra });
  expect(compared).toBeGreaterThan(0);
  return log;
}

describe('read models answer exactly what replay answers', () => {
  it('Acme then Beta (SPEC supersession): As-World@Tue = Acme, As-World@Thu = Beta, As-Recorded@Wed-noon = Acme', async () => {
    const m = new MemoryWriter(harness, 'acme-beta');
    await m.when(
      { op: 'UPSERT_ENTITY', entityId: 'alice', name: 'Alice', recordedAt: at('MON', '09:00') },
      { op: 'UPSERT_ENTITY', entityId: 'acme', name: 'Acme', recordedAt: at('MON', '09:00') },
      { op: 'UPSERT_ENTITY', entityId: 'beta', name: 'Beta', recordedAt: at('MON', '09:00') },
      { op: 'DEFINE_RELATION', rel: 'works_at', cardinality: 'one', recordedAt: at('MON', '09:00') },
      { op: 'UPSERT_EDGE', factId: 'f-acme', src: 'alice', rel: 'works_at', dst: 'acme', validFrom: at('MON'), recordedAt: at('MON', '09:00') },
    );
    await projected(
      await m.when({
        op: 'UPSERT_EDGE',
        factId: 'f-beta',
        src: 'alice',
        rel: 'works_at',
        dst: 'beta',
        validFrom: at('WED'),
        recordedAt: at('THU', '09:00'),
      }),
    );
    const q = harness.queries;
    const dsts = async (validAt: Instant, recordedAt: Instant) =>
      (await q.facts('acme-beta', { validAt, recordedAt }, { src: 'alice', rel: 'works_at' })).map((f) => f.dst);
    expect(await dsts(at('TUE', '12:00'), LATER)).toEqual(['acme']);
    expect(await dsts(at('THU', '12:00'), LATER)).toEqual(['beta']);
    expect(await dsts(at('WED', '12:00'), at('WED', '12:00'))).toEqual(['acme']);
    const [asWorldTue] = await q.facts('acme-beta', { validAt: at('TUE', '12:00'), recordedAt: LATER }, {});
    expect(asWorldTue).toMatchObject({
      factId: 'f-acme',
      validFrom: at('MON'),
      validTo: at('WED'),
      recordedFrom: at('THU', '09:00'),
      recordedTo: null,
    });
    expect((await q.history('acme-beta', 'f-acme'))!.map((v) => [v.validTo, v.recordedFrom, v.recordedTo])).toEqual([
      [null, at('MON', '09:00'), at('THU', '09:00')],
      [at('WED'), at('THU', '09:00'), null],
    ]);
    await expectReplayEverywhere('acme-beta', { filters: [{ src: 'alice' }, { dst: 'acme' }, { rel: 'works_at' }], entityIds: ['alice', 'acme'] });
  }, 60_000);

  it('merges: filters name the whole class from the merge on, answers show the canonical id, never before', async () => {
    const m = new MemoryWriter(harness, 'merges');
    await m.when(
      { op: 'UPSERT_ENTITY', entityId: 'alice', name: 'Alice', aliases: ['Ali'], types: ['person'], recordedAt: at('MON') },
      { op: 'UPSERT_ENTITY', entityId: 'alicia', name: 'Alicia', types: ['person', 'engineer'], recordedAt: at('MON') },
      { op: 'UPSERT_ENTITY', entityId: 'bob', name: 'Bob', recordedAt: at('MON') },
      { op: 'UPSERT_ENTITY', entityId: 'carol', name: 'Carol', aliases: ['Alice'], recordedAt: at('MON') },
      { op: 'UPSERT_ENTITY', entityId: 'dave', name: 'Dave', recordedAt: at('MON') },
      { op: 'UPSERT_EDGE', factId: 'f1', src: 'alicia', rel: 'knows', dst: 'bob', recordedAt: at('MON') },
      { op: 'UPSERT_EDGE', factId: 'f2', src: 'bob', rel: 'knows', dst: 'alicia', recordedAt: at('MON') },
      { op: 'UPSERT_EDGE', factId: 'f3', src: 'alice', rel: 'age', dst: { literal: 42, datatype: 'number' }, recordedAt: at('MON') },
    );
    await m.when({ op: 'UPSERT_ENTITY', entityId: 'alicia', name: 'Ally', types: ['engineer', 'pilot'], recordedAt: at('TUE') });
    await m.when({ op: 'MERGE_ENTITY', srcId: 'alicia', dstId: 'alice', recordedAt: at('WED') });
    await m.when({ op: 'UPSERT_EDGE', factId: 'f4', src: 'alicia', rel: 'knows', dst: 'carol', recordedAt: at('WED', '12:00') });
    await m.when({ op: 'MERGE_ENTITY', srcId: 'carol', dstId: 'alicia', recordedAt: at('THU') });
    await projected(await m.when({ op: 'MERGE_ENTITY', srcId: 'alice', dstId: 'dave', recordedAt: at('FRI') }));

    const q = harness.queries;
    const ids = async (src: string, r: Instant) =>
      (await q.facts('merges', { validAt: '*', recordedAt: r }, { src })).map((f) => [f.factId, f.src, f.dst]);
    expect(await ids('alicia', at('TUE'))).toEqual([['f1', 'alicia', 'bob']]);
    expect(await ids('alicia', at('WED'))).toEqual([
      ['f1', 'alice', 'bob'],
      ['f3', 'alice', { literal: 42, datatype: 'number' }],
    ]);
    expect(await ids('carol', at('THU'))).toEqual(await ids('alice', at('THU')));
    expect((await ids('bob', at('FRI'))).find(([id]) => id === 'f2')).toEqual(['f2', 'bob', 'dave']);
    const entity = await q.entity('merges', 'alicia', at('THU'));
    expect(entity).toEqual({
      entityId: 'alice',
      name: 'Alice',
      names: ['Alice', 'Alicia', 'Carol'],
      aliases: ['Ali', 'Alicia', 'Ally', 'Carol'],
      types: ['person', 'engineer', 'pilot'],
      merges: [
        { entityId: 'alicia', into: 'alice', recordedAt: at('WED') },
        { entityId: 'carol', into: 'alice', recordedAt: at('THU') },
      ],
      recordedFrom: at('MON'),
    });
    // A chain: each merge says which class joined which, so alicia is not shown joining dave on Wednesday.
    expect((await q.entity('merges', 'carol', at('FRI')))!.merges).toEqual([
      { entityId: 'alicia', into: 'alice', recordedAt: at('WED') },
      { entityId: 'carol', into: 'alice', recordedAt: at('THU') },
      { entityId: 'alice', into: 'dave', recordedAt: at('FRI') },
    ]);
    expect(await q.entity('merges', 'alicia', plusMs(at('MON'), -1))).toBeNull();
    expect(await q.entity('merges', 'nobody', LATER)).toBeNull();
    const everyone = ['alice', 'alicia', 'bob', 'carol', 'dave', 'nobody'];
    await expectReplayEverywhere('merges', {
      filters: [...everyone.flatMap((id) => [{ src: id }, { dst: id }]), { dst: '42' }, { src: 'alicia', rel: 'knows', dst: 'carol' }],
      entityIds: everyone,
    });
  }, 60_000);

  it('events disappear while an included fact is archived, and episodes list only visible events', async () => {
    const m = new MemoryWriter(harness, 'visibility');
    await m.when(
      { op: 'UPSERT_ENTITY', entityId: 'alice', name: 'Alice', recordedAt: at('MON') },
      { op: 'UPSERT_ENTITY', entityId: 'bob', name: 'Bob', recordedAt: at('MON') },
      { op: 'UPSERT_EDGE', factId: 'f1', src: 'alice', rel: 'knows', dst: 'bob', validFrom: at('SUN'), recordedAt: at('MON') },
      {
        op: 'UPSERT_EDGE',
        factId: 'f2',
        src: 'alice',
        rel: 'age',
        dst: { literal: 42, datatype: 'number' },
        validFrom: at('SUN'),
        recordedAt: at('MON'),
      },
      {
        op: 'UPSERT_EVENT',
        eventId: 'ev1',
        summary: 'Alice met Bob',
        participants: [
          { entityId: 'alice', role: 'agent' },
          { entityId: 'bob', role: 'patient' },
        ],
        includesFacts: ['f1', 'f2'],
        timeSpan: { from: at('MON'), to: at('WED') },
        recordedAt: at('MON'),
      },
      { op: 'UPSERT_EVENT', eventId: 'ev2', summary: 'Alice turned 42', includesFacts: ['f2'], timeSpan: { from: at('TUE') }, recordedAt: at('MON') },
      { op: 'UPSERT_EVENT', eventId: 'ev0', summary: 'no evidence', includesFacts: [], timeSpan: { from: at('SUN') }, recordedAt: at('MON') },
      { op: 'UPSERT_EPISODE', episodeId: 'ep1', title: 'week', window: { from: at('MON') }, events: ['ev1', 'ev2', 'ev1'], recordedAt: at('MON') },
      { op: 'LINK', kind: 'causal', from: 'ev1', to: 'ev2', recordedAt: at('MON') },
    );
    await m.when({ op: 'ARCHIVE_EDGE', factId: 'f1', recordedAt: at('TUE') });
    await m.when({ op: 'UPSERT_EDGE', factId: 'f1', src: 'alice', rel: 'knows', dst: 'bob', recordedAt: at('WED') });
    await m.when({
      op: 'UPSERT_EVENT',
      eventId: 'ev2',
      summary: 'Alice turned 42!',
      includesFacts: ['f2'],
      timeSpan: { from: at('TUE') },
      recordedAt: at('WED', '06:00'),
    });
    await m.when({ op: 'ARCHIVE_EDGE', factId: 'f2', recordedAt: at('THU') });
    // Asserted and archived at one record time: an empty [r, r) version, never in a cut.
    await projected(
      await m.when(
        { op: 'UPSERT_EDGE', factId: 'f5', src: 'bob', rel: 'knows', dst: 'alice', recordedAt: at('FRI') },
        { op: 'UPSERT_EVENT', eventId: 'ev5', summary: 'fleeting', includesFacts: ['f5'], timeSpan: { from: at('FRI') }, recordedAt: at('FRI') },
        { op: 'ARCHIVE_EDGE', factId: 'f5', recordedAt: at('FRI') },
      ),
    );
    const q = harness.queries;
    const eventIds = async (r: Instant, validAt: Instant | '*' = '*') =>
      (await q.events('visibility', { validAt, recordedAt: r })).map((e) => e.eventId);
    expect(await eventIds(at('MON'))).toEqual(['ev0', 'ev1', 'ev2']);
    expect(await eventIds(plusMs(at('TUE'), -1))).toEqual(['ev0', 'ev1', 'ev2']);
    expect(await eventIds(at('TUE'))).toEqual(['ev0', 'ev2']);
    expect(await eventIds(at('WED'))).toEqual(['ev0', 'ev1', 'ev2']);
    expect(await eventIds(at('WED'), at('WED'))).toEqual(['ev0', 'ev2']);
    expect(await eventIds(at('THU'))).toEqual(['ev0']);
    expect(await eventIds(at('FRI'))).toEqual(['ev0']);
    expect((await q.episodes('visibility', { validAt: '*', recordedAt: at('TUE') })).map((e) => e.events)).toEqual([['ev2']]);
    expect(await q.episodes('visibility', { validAt: '*', recordedAt: at('THU') })).toEqual([]);
    expect((await q.history('visibility', 'f5'))!.map((v) => [v.recordedFrom, v.recordedTo])).toEqual([[at('FRI'), at('FRI')]]);
    await expectReplayEverywhere('visibility', { filters: [{ dst: '42' }, { dst: 'bob' }], entityIds: ['alice', 'bob'] });
  }, 60_000);

  it('retro-corrections, including several commands at one record time, at every validity boundary', async () => {
    const m = new MemoryWriter(harness, 'retro');
    await m.when(
      { op: 'UPSERT_ENTITY', entityId: 'alice', name: 'Alice', recordedAt: at('MON') },
      { op: 'UPSERT_ENTITY', entityId: 'paris', name: 'Paris', recordedAt: at('MON') },
      {
        op: 'UPSERT_EDGE',
        factId: 'f',
        src: 'alice',
        rel: 'lives_in',
        dst: 'paris',
        validFrom: at('MON'),
        validTo: at('FRI'),
        recordedAt: at('MON'),
      },
    );
    await m.when({ op: 'RETRO_CORRECT', factId: 'f', validTo: at('WED'), recordedAt: at('TUE') });
    await m.when({ op: 'RETRO_CORRECT', factId: 'f', validFrom: at('TUE', '12:00'), recordedAt: at('WED') });
    await m.when(
      {
        op: 'UPSERT_EDGE',
        factId: 'f',
        src: 'alice',
        rel: 'lives_in',
        dst: 'paris',
        confidence: 0.30000000000000004,
        evidence: ['m2', 'm1', 'm2'],
        recordedAt: at('THU'),
      },
      { op: 'RETRO_CORRECT', factId: 'f', validTo: null, recordedAt: at('THU') },
    );
    await projected(
      await m.when({ op: 'UPSERT_EDGE', factId: 'f', src: 'alice', rel: 'lives_in', dst: 'paris', source: 'chat', recordedAt: at('THU', '01:00') }),
    );
    const history = (await harness.queries.history('retro', 'f'))!;
    expect(history.map((v) => [v.validFrom, v.validTo, v.recordedFrom, v.recordedTo])).toEqual([
      [at('MON'), at('FRI'), at('MON'), at('TUE')],
      [at('MON'), at('WED'), at('TUE'), at('WED')],
      [at('TUE', '12:00'), at('WED'), at('WED'), at('THU')],
      [at('TUE', '12:00'), at('WED'), at('THU'), at('THU')],
      [at('TUE', '12:00'), null, at('THU'), at('THU', '01:00')],
      [at('TUE', '12:00'), null, at('THU', '01:00'), null],
    ]);
    expect(history[5]).toMatchObject({ confidence: 0.30000000000000004, evidence: ['m2', 'm1', 'm2'], source: 'chat' });
    await expectReplayEverywhere('retro');
  }, 60_000);

  it('keeps literals, doubles, evidence order and extreme instants exact (jsonb, float8, year 0000)', async () => {
    const m = new MemoryWriter(harness, 'literals');
    const literals = [
      { literal: 1e21, datatype: 'number' as const },
      { literal: 0.1, datatype: 'number' as const },
      { literal: 5e-324, datatype: 'number' as const },
      { literal: -12.5, datatype: 'number' as const },
      { literal: false, datatype: 'boolean' as const },
      { literal: 'naïve "quoted", {braces} \\ 😀', datatype: 'string' as const },
      { literal: '2024-05-01T09:30:00.000Z', datatype: 'instant' as const },
    ];
    await projected(
      await m.when(
        { op: 'UPSERT_ENTITY', entityId: 'x', name: 'X', aliases: ['{a,b}', 'NULL', '"'], recordedAt: '0000-01-01T00:00:00.000Z' },
        ...literals.map((dst, i) => ({
          op: 'UPSERT_EDGE' as const,
          factId: `lit-${i}`,
          src: 'x',
          rel: 'value',
          dst,
          validFrom: '0000-02-29T12:00:00.000Z',
          validTo: '9999-12-31T23:59:59.999Z',
          confidence: [0.1, 1 / 3, 0, 1, null, 0.7, 2 ** -20][i]!,
          evidence: ['z', 'a', '{x}', 'NULL', ''],
          recordedAt: '0000-03-01T00:00:00.000Z',
        })),
        {
          op: 'RECORD_MENTION',
          mentionId: 'men',
          docId: 'd',
          text: 'said "hi"',
          occurredAt: '0000-01-01T00:00:00.000Z',
          recordedAt: '9999-12-31T23:59:59.999Z',
        },
      ),
    );
    const facts = await harness.queries.facts('literals', { validAt: '*', recordedAt: '9999-12-31T23:59:59.999Z' }, {});
    expect(facts.map((f) => f.dst)).toEqual(literals);
    expect(facts[1]).toMatchObject({
      confidence: 1 / 3,
      evidence: ['z', 'a', '{x}', 'NULL', ''],
      validFrom: '0000-02-29T12:00:00.000Z',
      validTo: '9999-12-31T23:59:59.999Z',
    });
    const byDst = async (dst: string) => (await harness.queries.facts('literals', { validAt: '*', recordedAt: LATER }, { dst })).map((f) => f.factId);
    expect(await byDst('1e+21')).toEqual(['lit-0']);
    expect(await byDst('5e-324')).toEqual(['lit-2']);
    expect(await byDst('false')).toEqual(['lit-4']);
    await expectReplayEverywhere('literals', {
      filters: literals.map((l) => ({ dst: String(l.literal) })),
      entityIds: ['x'],
    });
  }, 60_000);

  it('random logs of two interleaved memories, cut at every record time and validity bound', async () => {
    for (const seed of [11, 12, 13]) {
      const memories = [`rand-${seed}-a`, `rand-${seed}-b`];
      const logs = memories.map((memoryId, i) => randomLog(memoryId, seed * 10 + i, 70, { topics: true }));
      let last = 0;
      for (let i = 0; i < Math.max(...logs.map((l) => l.batches.length)); i++) {
        for (const [j, log] of logs.entries()) {
          const batch = log.batches[i];
          if (batch) last = await harness.append(memories[j]!, batch);
        }
      }
      await projected(last);
      for (const [j, memoryId] of memories.entries()) {
        const log = await harness.log(memoryId);
        expect(log).toEqual(logs[j]!.records);
        const state = fold(log);
        await expectSameAsReplay(harness.queries, memoryId, log, {
          recordedAts: [...around(logs[j]!.recordedAts).filter((_, k) => k % 5 === 1 || k % 7 === 0), LATER],
          validAts: ['*', ...validBounds(log).filter((_, k) => k % 4 === 0), LATER],
          filters: [...['e1', 'e2', 'e3', '42', 'true'].flatMap((id) => [{ src: id }, { dst: id }]), { rel: 'knows' }],
          entityIds: [...state.entities.keys()],
          windows: logs[j]!.recordedAts.filter((_, k) => k % 4 === 0).flatMap((from) => [
            [from, plusMs(from, 1)] as [Instant, Instant],
            [from, LATER] as [Instant, Instant],
          ]),
        });
      }
    }
  }, 120_000);
});

/**
 * Erasure (SPEC §5.2): canary strings in every content field, erased by entity, fact, mention and
 * document, then written again. The SQL answers equal replay's at every cut, before and after the
 * erasure (it changes the past), whether the erasure and what it erases are projected in one batch
 * or several, and no canary is left in any read-model table.
 */
describe('erasure', () => {
  const story = ERASURE_STORY;
  const FILTERS = [
    { dst: 'canary@example.org' },
    { dst: 'new@example.org' },
    { dst: '4242' },
    { dst: 'Paris' },
    { src: 'alice' },
    { src: 'ally' },
    { dst: 'acme' },
    { rel: 'email' },
  ];
  const ENTITY_FILTERS: EntityFilter[] = [
    {},
    { name: 'CanaryAlice' },
    { name: 'CanaryAli' },
    { name: 'canary', match: 'prefix' },
    { name: 'Ally' },
    { name: 'Alice Again' },
    { name: 'ali', match: 'prefix' },
    { type: 'canary-type' },
    { type: 'person' },
  ];

  /** Every query against replay, entity search included, and no canary in any table. */
  async function expectErasedAsReplay(memoryId: string): Promise<MemoryRecord[]> {
    const log = await expectReplayEverywhere(memoryId, { filters: FILTERS, entityIds: ['alice', 'ally', 'acme', 'bob', 'ghost'] });
    for (const r of [...new Set(log.map((e) => e.meta.recordedAt)), at('MON', '10:00'), LATER]) {
      for (const filter of ENTITY_FILTERS) {
        expect({ r, filter, answer: await harness.queries.entities(memoryId, r, filter) }).toEqual({
          r,
          filter,
          answer: entitiesAt(fold(log, r), filter),
        });
      }
    }
    const { rows } = await harness.db.pool.query<{ table_name: string }>(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_name LIKE 'rm\\_%'`,
    );
    expect(rows.length).toBeGreaterThanOrEqual(11);
    for (const { table_name: table } of rows) {
      const { rows: found } = await harness.db.pool.query(`SELECT t::text AS row FROM ${table} t WHERE t::text ILIKE '%canary%'`);
      expect({ table, found: found.map((f) => f.row) }).toEqual({ table, found: [] });
    }
    return log;
  }

  async function writeAcross(memoryId: string): Promise<void> {
    const m = new MemoryWriter(harness, memoryId);
    for (const step of story) await projected(await m.when(...step));
  }

  it('erases an entity, a document, a fact and a mention projected batch after batch; what is written after is new content', async () => {
    await writeAcross('erase-across');
    const log = await expectErasedAsReplay('erase-across');
    const q = harness.queries;
    // A cut before the erasures: the content is gone there too, ids, times and structure stay.
    const before = { validAt: '*' as const, recordedAt: at('MON', '10:00') };
    const facts = await q.facts('erase-across', before, {});
    expect(facts.map((f) => [f.factId, f.dst, f.source, f.erased])).toEqual([
      ['f-age', null, null, true],
      ['f-city', { literal: 'Paris', datatype: 'string' }, 'website', undefined],
      ['f-email', null, null, true],
      ['f-works', 'acme', null, true],
    ]);
    expect(facts.find((f) => f.factId === 'f-city')).not.toHaveProperty('erased');
    expect(await q.entity('erase-across', 'alice', at('TUE', '10:00'))).toMatchObject({
      name: null,
      names: ['Ally'],
      aliases: ['Ally'],
      types: [],
      erased: true,
    });
    expect((await q.events('erase-across', before)).map((e) => [e.eventId, e.summary, e.erased])).toEqual([
      ['ev-bob', 'Bob left', undefined],
      ['ev-join', null, true],
    ]);
    expect((await q.mentions('erase-across', before.recordedAt)).map((m) => [m.mentionId, m.text, m.speaker, m.erased])).toEqual([
      ['m1', null, null, true],
      ['m2', null, null, true],
      ['m3', 'unrelated', 'Bob', undefined],
      ['m4', null, null, true],
    ]);
    expect(await q.facts('erase-across', before, { dst: 'canary@example.org' })).toEqual([]);
    expect(await q.entities('erase-across', before.recordedAt, { name: 'canary', match: 'prefix' })).toEqual([]);
    // Written after the erasure: new content, not erased.
    const now = { validAt: '*' as const, recordedAt: LATER };
    expect((await q.facts('erase-across', now, { dst: 'new@example.org' })).map((f) => [f.factId, f.source, f.erased])).toEqual([
      ['f-email', 'new source', undefined],
    ]);
    expect(await q.entity('erase-across', 'alice', LATER)).toMatchObject({
      name: 'Alice Again',
      names: ['Alice Again', 'Ally'],
      aliases: ['Ali', 'Ally'],
      types: ['person'],
    });
    expect(await q.entity('erase-across', 'alice', LATER)).not.toHaveProperty('erased');
    const history = (await q.history('erase-across', 'f-email'))!;
    expect(history.map((v) => [v.dst, v.erased])).toEqual([
      [null, true],
      [null, true],
      [null, true],
      [{ literal: 'new@example.org', datatype: 'string' }, undefined],
    ]);
    // The erasures are listed for the search side, in log order.
    const { rows } = await harness.db.pool.query(
      `SELECT subject_kind, subject_id, entities, facts, events, mentions FROM rm_erasures WHERE memory_id = $1 ORDER BY position`,
      ['erase-across'],
    );
    expect(rows).toEqual(
      log
        .flatMap((r) => (r.type === 'SubjectErased' ? [r.data] : []))
        .map(({ subject, entities, facts: erased, events, mentions }) => ({
          subject_kind: subject.kind,
          subject_id: subject.id,
          entities,
          facts: erased,
          events,
          mentions,
        })),
    );
    expect(rows).toHaveLength(4);
  }, 120_000);

  it('erases what the same batch wrote before the erasure, and keeps what it writes after', async () => {
    const m = new MemoryWriter(harness, 'erase-within');
    const position = (await m.when(...story.flat()))!;
    await projected(position);
    const within = await expectErasedAsReplay('erase-within');
    await writeAcross('erase-across-2');
    const across = await harness.log('erase-across-2');
    // One batch or many: the same answers.
    for (const r of [...new Set(within.map((e) => e.meta.recordedAt)), LATER]) {
      const cut = { validAt: '*' as const, recordedAt: r };
      expect(await harness.queries.facts('erase-within', cut, {})).toEqual(await harness.queries.facts('erase-across-2', cut, {}));
      expect(await harness.queries.entity('erase-within', 'alice', r)).toEqual(await harness.queries.entity('erase-across-2', 'alice', r));
      expect(await harness.queries.events('erase-within', cut)).toEqual(await harness.queries.events('erase-across-2', cut));
      expect(await harness.queries.mentions('erase-within', r)).toEqual(await harness.queries.mentions('erase-across-2', r));
    }
    expect(within.length).toBe(across.length);
  }, 120_000);

  it('stores the nulls of records read after their keys were destroyed, and answers as replay of that log', async () => {
    const m = new MemoryWriter(harness, 'erase-source');
    const batches: MemoryRecord[][] = [];
    for (const step of story) {
      await m.when(...step);
      const log = await harness.log('erase-source');
      batches.push(log.slice(batches.flat().length));
    }
    const read = readAfterErasures(batches);
    expect(read.filter((r, i) => r !== batches.flat()[i]).length).toBeGreaterThan(5);
    for (const [i, batch] of batches.entries()) {
      const from = batches.slice(0, i).flat().length;
      await projected(await harness.append('erase-shredded', read.slice(from, from + batch.length)));
    }
    await expectErasedAsReplay('erase-shredded');
  }, 120_000);

  it('random logs with erasures and their shredded reads, cut at every record time', async () => {
    for (const seed of [21, 22]) {
      const { batches, records, recordedAts } = randomLog(`erase-rand-${seed}`, seed, 200, { erase: true, topics: true });
      expect(records.filter((r) => r.type === 'SubjectErased').length).toBeGreaterThan(3);
      const read = readAfterErasures(batches);
      let from = 0;
      let last = 0;
      for (const batch of batches) {
        last = await harness.append(`erase-rand-${seed}`, batch);
        last = await harness.append(`erase-rand-${seed}-read`, read.slice(from, from + batch.length));
        from += batch.length;
      }
      await projected(last);
      for (const memoryId of [`erase-rand-${seed}`, `erase-rand-${seed}-read`]) {
        const log = await harness.log(memoryId);
        const state = fold(log);
        await expectSameAsReplay(harness.queries, memoryId, log, {
          recordedAts: [...around(recordedAts).filter((_, k) => k % 7 === 1), LATER],
          validAts: ['*', ...validBounds(log).filter((_, k) => k % 8 === 0), LATER],
          filters: ['e1', 'e2', '42', 'true', 'x, "y"'].flatMap((id) => [{ src: id }, { dst: id }]),
          entityIds: [...state.entities.keys()],
        });
        for (const r of [...recordedAts.filter((_, k) => k % 6 === 0), LATER]) {
          for (const filter of [{}, { name: 'ada' }, { name: 'bo', match: 'prefix' as const }, { type: 'person' }]) {
            expect({ r, filter, answer: await harness.queries.entities(memoryId, r, filter) }).toEqual({
              r,
              filter,
              answer: entitiesAt(fold(log, r), filter),
            });
          }
        }
      }
    }
  }, 240_000);
});
