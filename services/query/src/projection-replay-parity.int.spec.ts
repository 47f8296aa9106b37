import { type Claim, type Cut, type EventFilter, type FactFilter, type MemoryQueries, checkClaim } from '@memotrace/domain';
import { VERDICTS } from '@memotrace/contracts';
import { ENTITY_IDS, RECORD_TIMES, RELATIONS, VALID_TIMES, historyArb, runHistory } from '@memotrace/domain/testing/histories';
import type { PostgresLogStore } from '@memotrace/log-store';
import { memoryStreamId, toNewRecords } from '@memotrace/memory-log';
import { PostgresMemoryQueries } from '@memotrace/read-models';
import { type Projector } from '@memotrace/projection';
import fc from 'fast-check';
import { MemoryLogCache, ReplayMemoryQueries } from './replay-queries';
import { type ProjectedLog, startProjectedLog } from './testing/projected-log';

/**
 * SPEC §4: `consistency=projection` and `consistency=replay` MUST answer
 * identically. Random histories (the domain's property-test generator) are
 * appended to the log, projected, then the queries that are more than a cut are asked
 * both ways: facts under src/rel/dst filters (merged classes) at every record time of the
 * history, one millisecond before each, and at every valid time (with several src, and a page at a time);
 * events about each entity and a page at a time; episodes a page at a time; entities by id; history;
 * changes and their counts per record instant; and the answer check (SPEC 5.3) of every claim the
 * history's entities, relations and literals can make, at every record and valid time.
 * What a cut shows (facts, events, episodes, entities, mentions), projection and replay
 * alike, is checked against the domain's reference cut by cut-conformance.int.spec.ts.
 */
const minusMs = (instant: string) => new Date(Date.parse(instant) - 1).toISOString();
const RECORD_CUTS = RECORD_TIMES.flatMap((t) => [minusMs(t), t]);
const VALID_CUTS: (string | '*')[] = ['*', ...VALID_TIMES];
const FILTERS: FactFilter[] = [
  { src: 'e0' },
  { rel: 'works_at' },
  { dst: 'e1' },
  { src: 'e2', rel: 'works_at' },
  // Several src, and pages of the cut by factId: what a console page of entities asks.
  { src: ['e0', 'e3', 'ghost'] },
  { limit: 2 },
  { after: 'fact_8', limit: 3 },
  { src: ['e1', 'e2'], after: 'fx', limit: 1 },
];
const EVENT_FILTERS: EventFilter[] = [
  ...ENTITY_IDS.map((entity) => ({ entity })),
  { limit: 1 },
  { after: 'ev1', limit: 1 },
  { entity: 'e0', limit: 1 },
];

describe('projection and replay answer identically over random histories', () => {
  let log: ProjectedLog;
  let store: PostgresLogStore;
  let projector: Projector;
  let projection: MemoryQueries;
  let replay: MemoryQueries;
  let memories = 0;

  beforeAll(async () => {
    log = await startProjectedLog();
    ({ store, projector } = log);
    projection = new PostgresMemoryQueries(log.db.pool);
    replay = new ReplayMemoryQueries(new MemoryLogCache(store));
  });
  afterAll(() => log.stop());

  async function compare<T>(what: string, ask: (q: MemoryQueries) => Promise<T>): Promise<void> {
    const [fromProjection, fromReplay] = await Promise.all([ask(projection), ask(replay)]);
    if (JSON.stringify(fromProjection) !== JSON.stringify(fromReplay)) {
      throw new Error(`${what}: projection ${JSON.stringify(fromProjection)} != replay ${JSON.stringify(fromReplay)}`);
    }
  }

  it('for filtered and paged facts, events and episodes, entities by id, history and changes', async () => {
    await fc.assert(
      fc.asyncProperty(historyArb, async (batches) => {
        const memoryId = `parity-${++memories}`;
        const run = runHistory(batches, { memoryId });
        const appended = await store.append(memoryStreamId(memoryId), toNewRecords(memoryId, run.log), { expectedRevision: 'no_stream' });
        expect(await projector.waitForPosition(appended.position, 30_000)).toBe(true);

        for (const recordedAt of RECORD_CUTS) {
          for (const validAt of VALID_CUTS) {
            const cut: Cut = { validAt, recordedAt };
            for (const filter of FILTERS) await compare(`facts ${JSON.stringify({ cut, filter })}`, (q) => q.facts(memoryId, cut, filter));
            // Event filters and pages do not depend on the validity: two valid times keep the run short.
            if (validAt !== '*' && validAt !== VALID_TIMES[4]) continue;
            for (const filter of EVENT_FILTERS) await compare(`events ${JSON.stringify({ cut, filter })}`, (q) => q.events(memoryId, cut, filter));
            for (const page of [{ limit: 1 }, { after: 'ep1' }])
              await compare(`episodes ${JSON.stringify({ cut, page })}`, (q) => q.episodes(memoryId, cut, page));
          }
          const ids = { ids: [...ENTITY_IDS, 'ghost'] };
          await compare(`entities ${JSON.stringify({ recordedAt, ...ids })}`, (q) => q.entities(memoryId, recordedAt, ids));
        }
        for (const factId of [...run.state.facts.keys(), 'no-such-fact']) {
          await compare(`history ${factId}`, (q) => q.history(memoryId, factId));
          await compare(`history ${factId}@${RECORD_TIMES[4]}`, (q) => q.history(memoryId, factId, RECORD_TIMES[4]));
        }
        for (let i = 0; i + 3 < RECORD_TIMES.length; i += 3) {
          await compare(`changes ${i}`, (q) => q.changes(memoryId, RECORD_TIMES[i]!, RECORD_TIMES[i + 3]!));
          await compare(`change counts ${i}`, (q) => q.changeCounts(memoryId, RECORD_TIMES[i]!, RECORD_TIMES[i + 3]!, 2));
        }
        // The answers are not vacuous: the seed's fact (e0 works_at e1) has a history.
        expect((await replay.history(memoryId, [...run.state.facts.keys()][0]!))?.length).toBeGreaterThan(0);
      }),
      { numRuns: 25 },
    );
  }, 600_000);

  // Every src (a ghost too) x relation x dst (every entity, a ghost, the histories' literals and one they never use) x valid time.
  const DSTS: Claim['dst'][] = [
    ...ENTITY_IDS,
    'ghost',
    { literal: 1, datatype: 'number' },
    { literal: 'one', datatype: 'string' },
    { literal: true, datatype: 'boolean' },
    { literal: 'two', datatype: 'string' },
  ];
  const CLAIMS: Claim[] = [...ENTITY_IDS, 'ghost'].flatMap((src) =>
    RELATIONS.flatMap((rel) => DSTS.flatMap((dst) => VALID_CUTS.map((validAt) => ({ src, rel, dst, validAt })))),
  );

  it('for the answer check: the grounds of every claim at every record and valid time, where every verdict occurs', async () => {
    const seen = new Set<string>();
    await fc.assert(
      fc.asyncProperty(historyArb, async (batches) => {
        const memoryId = `check-parity-${++memories}`;
        const run = runHistory(batches, { memoryId });
        const appended = await store.append(memoryStreamId(memoryId), toNewRecords(memoryId, run.log), { expectedRevision: 'no_stream' });
        expect(await projector.waitForPosition(appended.position, 30_000)).toBe(true);
        for (const recordedAt of RECORD_CUTS) {
          await compare(`claim grounds @${recordedAt}`, (q) => q.claimGrounds(memoryId, recordedAt, CLAIMS));
          // Equal grounds give equal verdicts (one rule): those seen show the histories reach each of them.
          const grounds = await replay.claimGrounds(memoryId, recordedAt, CLAIMS);
          grounds.forEach((ground, i) => seen.add(checkClaim(ground, CLAIMS[i]!.validAt, recordedAt).verdict));
        }
      }),
      { numRuns: 25 },
    );
    expect([...seen].sort()).toEqual([...VERDICTS].sort());
  }, 600_000);
});
