import type { Cut, FactFilter, FactView } from '@memotrace/domain';
import type { Projector } from '@memotrace/projection';
import { type Harness, MemoryWriter, openHarness } from '../../../projections/read-models/src/testing/pg-harness';
import { ConsistencyGate, type ProjectionProgress, type SourcedRead } from './consistency';
import { MemoryLogCache, ReplayMemoryQueries } from './replay-queries';

/**
 * The gate over the PostgreSQL log and read models: the read models' statement runs while the
 * memory's last record is looked up, and its answer is kept only when the checkpoint read with
 * its rows has reached that record. A cut right after a write sees the write.
 */
const T0 = '2024-05-06T09:00:00.000Z';
const CUT: Cut = { validAt: '2024-06-01T00:00:00.000Z', recordedAt: '2024-06-01T00:00:00.000Z' };

let harness: Harness;
let projector: Projector | undefined;

beforeAll(async () => {
  harness = await openHarness();
});

afterAll(async () => {
  await projector?.stop();
  await harness?.close();
});

/** The one projector of the read models, started on first use. */
const running = async () => (projector ??= await harness.startProjector());

const gateWith = (progress: ProjectionProgress) =>
  new ConsistencyGate(harness.queries, new ReplayMemoryQueries(new MemoryLogCache(harness.store)), harness.store, progress, {
    minPositionTimeoutMs: 2_000,
    ownWritesWaitMs: 2_000,
  });

/** The facts route's read, with the checkpoints the read models answered at. */
const factsRead = (memoryId: string, filter: FactFilter, checkpoints: number[]): SourcedRead<FactView[]> => ({
  replay: (queries) => queries.facts(memoryId, CUT, filter),
  projection: async (queries) => {
    const read = await queries.checkpointedFacts(memoryId, CUT, filter);
    checkpoints.push(read.checkpoint);
    return read;
  },
});

const writer = async (memoryId: string) => {
  const m = new MemoryWriter(harness, memoryId);
  await m.when(
    { op: 'UPSERT_ENTITY', entityId: 'ann', name: 'Ann', recordedAt: T0 },
    { op: 'UPSERT_ENTITY', entityId: 'oslo', name: 'Oslo', recordedAt: T0 },
  );
  return m;
};
const edge = (factId: string) => ({ op: 'UPSERT_EDGE' as const, factId, src: 'ann', rel: 'knows', dst: 'oslo', validFrom: T0, recordedAt: T0 });

it('read models behind the memory\u2019s last record: the first answer is dropped, the read waits for the record and reads again', async () => {
  const m = await writer('behind');
  const position = (await m.when(edge('f1')))!;
  const waited: number[] = [];
  const checkpoints: number[] = [];
  // No projector runs until the gate waits: the first statement sees the checkpoint below the write.
  const gate = gateWith({
    waitFor: async (target, timeoutMs) => {
      waited.push(target);
      return (await running()).waitForPosition(target, timeoutMs);
    },
  });
  const facts = await gate.read('behind', 'projection', undefined, factsRead('behind', { src: 'ann' }, checkpoints));
  expect(facts.map((f) => f.factId)).toEqual(['f1']);
  expect(waited).toEqual([position]);
  expect(checkpoints).toHaveLength(2);
  expect(checkpoints[0]).toBeLessThan(position);
  expect(checkpoints[1]).toBeGreaterThanOrEqual(position);
});

it('a cut right after each write sees it, whether or not the projector had committed it when the statement ran', async () => {
  const live = await running();
  const gate = gateWith({ waitFor: (position, timeoutMs) => live.waitForPosition(position, timeoutMs) });
  const m = await writer('racing');
  const checkpoints: number[] = [];
  for (let i = 1; i <= 25; i++) {
    await m.when(edge(`r${i}`));
    const facts = await gate.read('racing', 'projection', undefined, factsRead('racing', { src: 'ann' }, checkpoints));
    expect(facts.map((f) => f.factId)).toContain(`r${i}`);
    expect(facts).toHaveLength(i);
  }
  expect(checkpoints.length).toBeGreaterThanOrEqual(25);
});

it('with minPosition, read models that do not reach it in time are TIMEOUT; an unknown memory is 404 for either source', async () => {
  await projector?.stop();
  projector = undefined;
  const m = await writer('stalled');
  await m.when(edge('s1'));
  const stalled = gateWith({ waitFor: async () => false });
  const checkpoints: number[] = [];
  const last = 3; // the memory's log: two entities, then the edge
  await expect(stalled.read('stalled', 'projection', last, factsRead('stalled', {}, checkpoints))).rejects.toMatchObject({ code: 'TIMEOUT' });
  for (const consistency of ['projection', 'replay'] as const) {
    await expect(stalled.read('nobody', consistency, undefined, factsRead('nobody', {}, checkpoints))).rejects.toMatchObject({
      code: 'UNKNOWN_MEMORY',
      status: 404,
    });
  }
  expect((await stalled.read('stalled', 'replay', last, factsRead('stalled', {}, checkpoints))).map((f) => f.factId)).toEqual(['s1']);
});
