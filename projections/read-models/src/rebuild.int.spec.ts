import { type Instant, type MemoryQueries, type ValidAt, fold } from '@memotrace/domain';
import { RECORD_TIMES, historyArb, runHistory } from '@memotrace/domain/testing/histories';
import { createPool } from '@memotrace/postgres';
import fc from 'fast-check';
import type { Pool } from 'pg';
import { PostgresMemoryQueries } from './postgres-memory-queries';
import type { Projector } from '@memotrace/projection';
import { type RebuildProgress, dropSchema, rebuildReadModels, snapshotSearchPath } from './rebuild';
import { type Harness, openHarness } from './testing/pg-harness';
import { readAfterErasures } from './testing/read-after-erasure';
import { randomLog } from './testing/random-log';
import { expectSameAsReplay, plusMs, validBounds } from './testing/replay-compare';

/**
 * Issue 4: rebuild from the log into new tables. To T: a snapshot schema that
 * answers every query at record time <= T exactly as the live projection does.
 * To the head: built beside the live tables while they serve and the live
 * projector writes, then switched in atomically; the live projector carries on.
 */
let harness: Harness;
let projector: Projector;
const memories: string[] = [];

async function writeRandomMemories(prefix: string, count: number, seed: number): Promise<number> {
  let position = 0;
  for (const [i, batches] of fc.sample(historyArb, { numRuns: count, seed }).entries()) {
    const memoryId = `${prefix}-${i}`;
    const run = runHistory(batches, { memoryId });
    let from = 0;
    for (const batch of run.batches) {
      if (batch.results === null || batch.logLength === from) continue;
      position = await harness.append(memoryId, run.log.slice(from, batch.logLength));
      from = batch.logLength;
    }
    memories.push(memoryId);
  }
  return position;
}

/** Same answers from two sources for every query of one memory at the given cuts. */
async function expectSameAnswers(a: MemoryQueries, b: MemoryQueries, memoryId: string, recordedAts: readonly Instant[]): Promise<number> {
  const log = await harness.log(memoryId);
  const full = fold(log);
  const validAts: ValidAt[] = ['*', ...validBounds(log)];
  let compared = 0;
  const same = async (label: string, ask: (q: MemoryQueries) => Promise<unknown>) => {
    compared += 1;
    const [x, y] = await Promise.all([ask(a), ask(b)]);
    expect({ label, answer: x }).toEqual({ label, answer: y });
  };
  for (const r of recordedAts) {
    for (const validAt of validAts) {
      const cut = { validAt, recordedAt: r };
      await same(`facts ${validAt} ${r}`, (q) => q.facts(memoryId, cut, {}));
      await same(`events ${validAt} ${r}`, (q) => q.events(memoryId, cut));
      await same(`episodes ${validAt} ${r}`, (q) => q.episodes(memoryId, cut));
    }
    for (const entityId of [...full.entities.keys(), 'ghost']) await same(`entity ${entityId} ${r}`, (q) => q.entity(memoryId, entityId, r));
    for (const factId of full.facts.keys()) await same(`history ${factId} ${r}`, (q) => q.history(memoryId, factId, r));
    await same(`mentions ${r}`, (q) => q.mentions(memoryId, r));
  }
  for (let i = 0; i + 1 < recordedAts.length; i += 2) {
    await same(`changes ${recordedAts[i]}`, (q) => q.changes(memoryId, recordedAts[i]!, recordedAts[i + 1]!));
  }
  return compared;
}

/** Memories with erasures (SPEC §5.2), as decided and as read back once their keys are destroyed (null content before each erasure). */
async function writeErasingMemories(prefix: string, seed: number): Promise<number> {
  const { batches } = randomLog(`${prefix}-erasing`, seed, 150, { erase: true });
  const read = readAfterErasures(batches);
  let position = 0;
  let from = 0;
  for (const batch of batches) {
    await harness.append(`${prefix}-erasing`, batch);
    position = await harness.append(`${prefix}-erasing-read`, read.slice(from, (from += batch.length)));
  }
  memories.push(`${prefix}-erasing`, `${prefix}-erasing-read`);
  return position;
}

beforeAll(async () => {
  harness = await openHarness();
  projector = await harness.startProjector({ batchSize: 100 });
  await writeRandomMemories('rebuild', 10, 7);
  const position = await writeErasingMemories('rebuild', 7);
  expect(await projector.waitForPosition(position, 30_000)).toBe(true);
  // Not vacuous: erasures to apply, before T and after it (a snapshot to T applies those too).
  const { rows } = await harness.db.pool.query<{ before: number; after: number }>(
    'SELECT count(*) FILTER (WHERE recorded_at <= $1)::int AS before, count(*) FILTER (WHERE recorded_at > $1)::int AS after FROM rm_erasures',
    [RECORD_TIMES[4]],
  );
  expect(rows[0]!.before).toBeGreaterThan(0);
  expect(rows[0]!.after).toBeGreaterThan(0);
});

afterAll(async () => {
  await harness?.close();
});

describe('rebuild to a record time T (snapshot schema)', () => {
  const T = RECORD_TIMES[4]!;
  let snapshot: Pool;
  let schema: string;
  const progress: RebuildProgress[] = [];

  beforeAll(async () => {
    const result = await rebuildReadModels({
      pool: harness.db.pool,
      store: harness.store,
      to: T,
      batchSize: 200,
      onProgress: (p) => progress.push(p),
    });
    expect(result.mode).toBe('snapshot');
    schema = result.schema;
    snapshot = createPool(harness.db.url, { options: snapshotSearchPath(schema) });
  });
  afterAll(async () => {
    await snapshot?.end();
    await dropSchema(harness.db.pool, schema);
  });

  it('answers every query at record time <= T exactly as the live projection', async () => {
    const live = harness.queries;
    const frozen = new PostgresMemoryQueries(snapshot);
    // Every record time up to T and the millisecond before each (where half-open mistakes show).
    const recordedAts = RECORD_TIMES.filter((t) => t <= T).flatMap((t) => [plusMs(t, -1), t]);
    let compared = 0;
    for (const memoryId of memories) compared += await expectSameAnswers(frozen, live, memoryId, recordedAts);
    expect(compared).toBeGreaterThan(1000);
  }, 240_000);

  it('holds nothing recorded after T, and leaves the live read models alone', async () => {
    const { rows } = await snapshot.query(`SELECT count(*)::int AS n FROM rm_fact_versions WHERE recorded_from > $1`, [T]);
    expect(rows[0].n).toBe(0);
    const { rows: later } = await harness.db.pool.query(`SELECT count(*)::int AS n FROM rm_fact_versions WHERE recorded_from > $1`, [T]);
    expect(later[0].n).toBeGreaterThan(0); // the random histories do record after T
  });

  it('reports progress: events done, rate, ETA, then done', () => {
    expect(progress.length).toBeGreaterThan(2);
    const last = progress[progress.length - 1]!;
    expect(last).toMatchObject({ schema, to: T, phase: 'done' });
    expect(last.done).toBe(last.total);
    expect(progress.some((p) => p.phase === 'building' && p.done > 0 && p.etaSeconds !== null && p.eventsPerSecond > 0)).toBe(true);
  });
});

describe('bulk-loaded rebuild vs the live projector', () => {
  it('holds exactly the rows the live projector wrote, table by table', async () => {
    // Before any switch, the live tables are the live projector's alone; quiet log: both sides saw the same events.
    expect(await projector.waitForPosition(await harness.store.headPosition(), 30_000)).toBe(true);
    await projector.stop();
    try {
      const result = await rebuildReadModels({ pool: harness.db.pool, store: harness.store, keepOld: true });
      const retired = result.retiredSchema!;
      const tables = [
        'rm_fact_versions',
        'rm_event_versions',
        'rm_episode_versions',
        'rm_topic_versions',
        'rm_entities',
        'rm_entity_labels',
        'rm_entity_merges',
        'rm_relations',
        'rm_event_links',
        'rm_mentions',
        'rm_erasures',
        'rm_checkpoints',
      ];
      let rows = 0;
      for (const table of tables) {
        const differ = async (a: string, b: string) =>
          Number(
            (await harness.db.pool.query(`SELECT count(*) AS n FROM (SELECT * FROM ${a}.${table} EXCEPT ALL SELECT * FROM ${b}.${table}) d`)).rows[0]
              .n,
          );
        expect({ table, rebuiltOnly: await differ('public', retired), liveOnly: await differ(retired, 'public') }).toEqual({
          table,
          rebuiltOnly: 0,
          liveOnly: 0,
        });
        rows += Number((await harness.db.pool.query(`SELECT count(*) AS n FROM public.${table}`)).rows[0].n);
      }
      expect(rows).toBeGreaterThan(100); // not vacuous
      // The same keys, indexes and constraints as the tables the migrations made (built in another order).
      const catalog = async (schema: string) => {
        const unqualified = <R extends { def: string }>(rows: R[]): R[] => rows.map((r) => ({ ...r, def: r.def.replaceAll(`${schema}.`, '') }));
        return {
          indexes: unqualified(
            (
              await harness.db.pool.query(
                `SELECT tablename, indexname, indexdef AS def FROM pg_indexes WHERE schemaname = $1 AND tablename LIKE 'rm\\_%' ORDER BY 1, 2`,
                [schema],
              )
            ).rows,
          ),
          constraints: unqualified(
            (
              await harness.db.pool.query(
                'SELECT c.relname, k.conname, k.contype, pg_get_constraintdef(k.oid) AS def FROM pg_constraint k ' +
                  `JOIN pg_class c ON c.oid = k.conrelid JOIN pg_namespace n ON n.oid = c.relnamespace
                  WHERE n.nspname = $1 AND c.relname LIKE 'rm\\_%' ORDER BY 1, 2`,
                [schema],
              )
            ).rows,
          ),
        };
      };
      const [rebuilt, migrated] = [await catalog('public'), await catalog(retired)];
      expect(rebuilt.indexes.length).toBeGreaterThan(10);
      expect(rebuilt.constraints.filter((c) => c.contype === 'p').map((c) => c.relname)).toEqual(tables.slice().sort());
      expect(rebuilt).toEqual(migrated);
      await dropSchema(harness.db.pool, retired);
    } finally {
      projector = await harness.startProjector({ batchSize: 100 });
    }
  }, 120_000);
});

describe('rebuild to the head, blue/green', () => {
  it('builds beside the live tables while they serve and are written, switches atomically, and the live projector carries on', async () => {
    // Writes keep coming during the rebuild; the live projector keeps applying them to the live tables.
    const writing = writeRandomMemories('during', 6, 8);
    const phases = new Set<string>();
    const result = await rebuildReadModels({ pool: harness.db.pool, store: harness.store, batchSize: 100, onProgress: (p) => phases.add(p.phase) });
    expect(result.mode).toBe('switched');
    expect([...phases]).toEqual(['building', 'loading', 'indexing', 'switching', 'done']);
    const during = await writing;

    // Only the live schema's tables remain: the build schema moved in, the old tables were dropped.
    const { rows: schemas } = await harness.db.pool.query(`SELECT nspname FROM pg_namespace WHERE nspname LIKE 'rm\\_%'`);
    expect(schemas).toEqual([]);

    // Writes after the switch land in the new tables through the same live projector.
    const after = await writeRandomMemories('after', 4, 9);
    expect(await projector.waitForPosition(Math.max(during, after), 30_000)).toBe(true);
    for (const memoryId of memories) {
      const log = await harness.log(memoryId);
      const recordedAts = [...new Set(log.map((e) => e.meta.recordedAt)), '2100-01-01T00:00:00.000Z'];
      await expectSameAsReplay(harness.queries, memoryId, log, { recordedAts, validAts: ['*', ...validBounds(log)] });
    }
    // Nothing applied twice: one open version per fact at most, and the checkpoint is the head.
    const { rows } = await harness.db.pool.query(`SELECT position::int AS position FROM rm_checkpoints`);
    expect(rows).toEqual([{ position: await harness.store.headPosition() }]);
  }, 240_000);
});
