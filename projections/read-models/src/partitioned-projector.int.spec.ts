import { historyArb, runHistory } from '@memotrace/domain/testing/histories';
import { READ_MODELS_PROJECTION } from './read-models-projection';
import fc from 'fast-check';
import { layoutCheckpoints } from '@memotrace/projection';
import { type Projector, projectedPosition } from '@memotrace/projection';
import { dropSchema, rebuildReadModels } from './rebuild';
import { READ_MODEL_TABLES } from './schema';
import { type Harness, openHarness } from './testing/pg-harness';

/**
 * Partitioned projectors in one process (the work-sharing processes run the same code):
 * together they write exactly what a whole-log build writes; the readers' position is the
 * lowest partition's; a rebuild keeps the partition layout; the layout only changes when
 * every old checkpoint agrees.
 */
let harness: Harness;

beforeAll(async () => {
  harness = await openHarness();
  for (const [i, batches] of fc.sample(historyArb, { numRuns: 16, seed: 11 }).entries()) {
    const memoryId = `part-${i}`;
    const run = runHistory(batches, { memoryId });
    if (run.log.length > 0) await harness.append(memoryId, run.log);
  }
});

afterAll(async () => {
  await harness?.close();
});

const checkpoints = async () =>
  (
    await harness.db.pool.query<{ projection: string; position: number }>(
      'SELECT projection, position::int AS position FROM rm_checkpoints ORDER BY projection',
    )
  ).rows;

it('splits the log between partitions, each applying only its memories, exactly once', async () => {
  const head = await harness.store.headPosition();
  const parts: Projector[] = [];
  parts.push(await harness.startProjector({ partition: { index: 0, count: 2 }, batchSize: 7 }));
  // Both rows exist from the first start: the readers' position is the lower one (0 here).
  expect((await checkpoints()).map((c) => c.projection)).toEqual(layoutCheckpoints('read-models', 2));
  expect(await parts[0]!.waitForPosition(head, 30_000)).toBe(true);
  expect(await projectedPosition(harness.db.pool, READ_MODELS_PROJECTION)).toBe(0);
  parts.push(await harness.startProjector({ partition: { index: 1, count: 2 }, batchSize: 13 }));
  expect(await parts[1]!.waitForPosition(head, 30_000)).toBe(true);
  expect(await projectedPosition(harness.db.pool, READ_MODELS_PROJECTION)).toBe(head);
  for (const p of parts) await p.stop();

  // Same rows as a whole-log build (bulk rebuild, compared table by table), and the layout survives the switch.
  const result = await rebuildReadModels({ pool: harness.db.pool, store: harness.store, keepOld: true });
  let rows = 0;
  for (const table of READ_MODEL_TABLES.filter((t) => t !== 'rm_checkpoints')) {
    const differ = async (a: string, b: string) =>
      Number(
        (await harness.db.pool.query(`SELECT count(*) AS n FROM (SELECT * FROM ${a}.${table} EXCEPT ALL SELECT * FROM ${b}.${table}) d`)).rows[0].n,
      );
    expect({
      table,
      rebuiltOnly: await differ('public', result.retiredSchema!),
      partitionedOnly: await differ(result.retiredSchema!, 'public'),
    }).toEqual({ table, rebuiltOnly: 0, partitionedOnly: 0 });
    rows += Number((await harness.db.pool.query(`SELECT count(*) AS n FROM ${table}`)).rows[0].n);
  }
  expect(rows).toBeGreaterThan(100);
  await dropSchema(harness.db.pool, result.retiredSchema!);
  expect(await checkpoints()).toEqual(layoutCheckpoints('read-models', 2).map((projection) => ({ projection, position: head })));
});

it('changes the partition count only when the old checkpoints agree', async () => {
  const head = await harness.store.headPosition();
  await harness.db.pool.query(`UPDATE rm_checkpoints SET position = position - 1 WHERE projection = 'read-models@1/2'`);
  await expect(harness.startProjector({ partition: { index: 0, count: 3 } })).rejects.toThrow(/cannot run read-models in 3 partition\(s\).*differ/);
  await harness.db.pool.query(`UPDATE rm_checkpoints SET position = $1`, [head]);
  const whole = await harness.startProjector();
  expect(await checkpoints()).toEqual([{ projection: 'read-models', position: head }]);
  await whole.stop();
});
