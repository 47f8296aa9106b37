import { projectedPosition } from '@memotrace/projection';
import { READ_MODELS_PROJECTION } from './read-models-projection';
import { type Harness, MemoryWriter, openHarness } from './testing/pg-harness';

/**
 * `checkpointedFacts` answers what `facts` answers, with the checkpoint readers wait for
 * (`projectedPosition`), read in the snapshot of its rows: in the one statement of a
 * filter that names no merged entity, and in the snapshot of one that does.
 */
const T0 = '2024-05-06T09:00:00.000Z';
const T1 = '2024-05-07T09:00:00.000Z';
const LATER = '2024-06-01T00:00:00.000Z';
const CUT = { validAt: LATER, recordedAt: LATER };

let harness: Harness;

beforeAll(async () => {
  harness = await openHarness();
});

afterAll(async () => {
  await harness?.close();
});

it('names the checkpoint of the snapshot its rows were read in, with or without merged classes in the filter', async () => {
  const m = new MemoryWriter(harness, 'checkpointed');
  await m.when(
    { op: 'UPSERT_ENTITY', entityId: 'ann', name: 'Ann', recordedAt: T0 },
    { op: 'UPSERT_ENTITY', entityId: 'annie', name: 'Annie', recordedAt: T0 },
    { op: 'UPSERT_ENTITY', entityId: 'oslo', name: 'Oslo', recordedAt: T0 },
    { op: 'UPSERT_EDGE', factId: 'f1', src: 'ann', rel: 'lives_in', dst: 'oslo', validFrom: T0, recordedAt: T0 },
  );
  const filters = [{ src: 'ann' }, { src: 'annie' }, { dst: 'oslo' }, {}];
  // Written, not yet projected: the rows are not there, and the checkpoint says so.
  for (const filter of filters) expect(await harness.queries.checkpointedFacts('checkpointed', CUT, filter)).toEqual({ answer: [], checkpoint: 0 });

  const projector = await harness.startProjector();
  const first = await m.when({ op: 'UPSERT_EDGE', factId: 'f2', src: 'annie', rel: 'knows', dst: 'oslo', validFrom: T0, recordedAt: T0 });
  expect(await projector.waitForPosition(first!, 10_000)).toBe(true);
  for (const filter of filters) {
    const { answer, checkpoint } = await harness.queries.checkpointedFacts('checkpointed', CUT, filter);
    expect(checkpoint).toBe(first);
    expect(answer).toEqual(await harness.queries.facts('checkpointed', CUT, filter));
  }
  expect((await harness.queries.facts('checkpointed', CUT, { src: 'annie' })).map((f) => f.factId)).toEqual(['f2']);

  // After the merge, a filter naming either id reads the class in a snapshot of its own: its checkpoint is that snapshot's.
  const merged = await m.when({ op: 'MERGE_ENTITY', srcId: 'annie', dstId: 'ann', recordedAt: T1 });
  expect(await projector.waitForPosition(merged!, 10_000)).toBe(true);
  for (const filter of filters) {
    const { answer, checkpoint } = await harness.queries.checkpointedFacts('checkpointed', CUT, filter);
    expect(checkpoint).toBe(merged);
    expect(answer).toEqual(await harness.queries.facts('checkpointed', CUT, filter));
  }
  expect((await harness.queries.facts('checkpointed', CUT, { src: 'annie' })).map((f) => f.factId)).toEqual(['f1', 'f2']);
  await projector.stop();
});

it('with partitioned projectors, the checkpoint is the lowest partition\u2019s, as `projectedPosition` reads it', async () => {
  const pool = harness.db.pool;
  await pool.query('DELETE FROM rm_checkpoints WHERE projection = $1', [READ_MODELS_PROJECTION]);
  await pool.query(`INSERT INTO rm_checkpoints (projection, position) VALUES ('read-models@0/2', 7), ('read-models@1/2', 5)`);
  for (const filter of [{ src: 'ann' }, { src: 'annie' }, {}]) {
    expect((await harness.queries.checkpointedFacts('checkpointed', CUT, filter)).checkpoint).toBe(5);
  }
  expect(await projectedPosition(pool, READ_MODELS_PROJECTION)).toBe(5);
});
