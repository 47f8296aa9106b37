import {
  type Command,
  type Cut,
  type EntityFilter,
  type FactFilter,
  type Instant,
  type MemoryQueries,
  type MemoryRecord,
  decideBatch,
  fold,
  initialState,
  validityBounds,
} from '@memotrace/domain';
import { historyArb, runHistory } from '@memotrace/domain/testing/histories';
import type { PostgresLogStore } from '@memotrace/log-store';
import { memoryStreamId, toNewRecords } from '@memotrace/memory-log';
import { type Projector } from '@memotrace/projection';
import { PostgresMemoryQueries } from '@memotrace/read-models';
import fc from 'fast-check';
import { ERASURE_STORY } from '../../../projections/read-models/src/testing/erasure-story';
import { readAfterErasures } from '../../../projections/read-models/src/testing/read-after-erasure';
import { randomLog } from '../../../projections/read-models/src/testing/random-log';
import { MemoryLogCache, ReplayMemoryQueries } from './replay-queries';
import { type ProjectedLog, startProjectedLog } from './testing/projected-log';

/**
 * SPEC §4 and §5.2: `consistency=projection` and `consistency=replay` answer identically, byte
 * for byte, when the log holds erasures: every query at cuts before, at and after each erasure
 * (an erasure changes the past), over the erasure story (canaries erased by entity, document,
 * fact and mention, then written again), random logs with erasures, the domain's random
 * histories, and each of those logs as the sealed store reads it once the erased keys are
 * destroyed (null content before the erasure that lists it).
 */
const LATER = '2100-01-01T00:00:00.000Z';
const minusMs = (instant: Instant) => new Date(Date.parse(instant) - 1).toISOString();

let log: ProjectedLog;
let store: PostgresLogStore;
let projector: Projector;
let projection: MemoryQueries;
let replay: MemoryQueries;

beforeAll(async () => {
  log = await startProjectedLog();
  ({ store, projector } = log);
  projection = new PostgresMemoryQueries(log.db.pool);
  replay = new ReplayMemoryQueries(new MemoryLogCache(store));
});
afterAll(() => log.stop());

/** Appends a memory's log batch by batch (each one append), and its read-after-destruction twin; waits for the projector. */
async function appendWithReadBack(memoryId: string, batches: readonly MemoryRecord[][]): Promise<[string, string]> {
  const read = readAfterErasures(batches);
  let position = 0;
  let from = 0;
  for (const batch of batches) {
    if (batch.length === 0) continue;
    await store.append(memoryStreamId(memoryId), toNewRecords(memoryId, batch), { expectedRevision: 'any' });
    const shredded = read.slice(from, (from += batch.length));
    position = (await store.append(memoryStreamId(`${memoryId}-read`), toNewRecords(`${memoryId}-read`, shredded), { expectedRevision: 'any' }))
      .position;
  }
  expect(await projector.waitForPosition(position, 30_000)).toBe(true);
  return [memoryId, `${memoryId}-read`];
}

async function same(what: string, ask: (q: MemoryQueries) => Promise<unknown>): Promise<void> {
  const [fromProjection, fromReplay] = await Promise.all([ask(projection), ask(replay)]);
  if (JSON.stringify(fromProjection) !== JSON.stringify(fromReplay)) {
    throw new Error(`${what}: projection ${JSON.stringify(fromProjection)} != replay ${JSON.stringify(fromReplay)}`);
  }
}

/** Every query, at each record time of the log and the millisecond before it, and later. */
async function expectParity(memoryId: string, options: { everyNth?: number } = {}): Promise<number> {
  const records = (await store.readStream(memoryStreamId(memoryId))).length;
  expect(records).toBeGreaterThan(0);
  const state = fold(await new MemoryLogCache(store).read(memoryId));
  const times = [...new Set((await new MemoryLogCache(store).read(memoryId)).map((r) => r.meta.recordedAt))];
  const nth = options.everyNth ?? 1;
  const recordedAts = [...times.filter((_, i) => i % nth === 0).flatMap((t) => [minusMs(t), t]), LATER];
  const validAts: Cut['validAt'][] = ['*', ...validityBounds(state).filter((_, i) => i % (nth * 2) === 0), LATER];
  const entityIds = [...state.entities.keys(), 'ghost'];
  const literals = [...state.facts.values()].flatMap((f) => (f.dst !== null && typeof f.dst !== 'string' ? [String(f.dst.literal)] : []));
  const filters: FactFilter[] = [
    ...entityIds.flatMap((id) => [{ src: id }, { dst: id }]),
    ...[...new Set(literals)].map((dst) => ({ dst })),
    { rel: 'email' },
  ];
  const names = [...state.entities.values()].flatMap((e) => (e.name !== null ? [e.name] : []));
  const entityFilters: EntityFilter[] = [
    {},
    ...names.map((name) => ({ name })),
    { name: 'a', match: 'prefix' },
    { name: 'canary', match: 'prefix' },
    { type: 'person' },
  ];
  const docIds = [...new Set([...state.mentions.values()].map((m) => m.docId)), 'no-such-doc'];
  let compared = 0;
  const check = async (what: string, ask: (q: MemoryQueries) => Promise<unknown>) => {
    compared += 1;
    await same(`${memoryId} ${what}`, ask);
  };
  for (const recordedAt of recordedAts) {
    for (const validAt of validAts) {
      const cut: Cut = { validAt, recordedAt };
      await check(`facts ${JSON.stringify(cut)}`, (q) => q.facts(memoryId, cut, {}));
      await check(`events ${JSON.stringify(cut)}`, (q) => q.events(memoryId, cut));
      await check(`episodes ${JSON.stringify(cut)}`, (q) => q.episodes(memoryId, cut));
    }
    const everywhere: Cut = { validAt: '*', recordedAt };
    for (const filter of filters) await check(`facts ${JSON.stringify({ everywhere, filter })}`, (q) => q.facts(memoryId, everywhere, filter));
    for (const entityId of entityIds) await check(`entity ${entityId} ${recordedAt}`, (q) => q.entity(memoryId, entityId, recordedAt));
    for (const filter of entityFilters)
      await check(`entities ${JSON.stringify(filter)} ${recordedAt}`, (q) => q.entities(memoryId, recordedAt, filter));
    for (const factId of [...state.facts.keys(), 'no-such-fact'])
      await check(`history ${factId} ${recordedAt}`, (q) => q.history(memoryId, factId, recordedAt));
    await check(`mentions ${recordedAt}`, (q) => q.mentions(memoryId, recordedAt));
    for (const docId of docIds) await check(`documentMentions ${docId} ${recordedAt}`, (q) => q.documentMentions(memoryId, docId, recordedAt));
    for (const mentionId of [...state.mentions.keys(), 'no-such-mention'])
      await check(`mention ${mentionId} ${recordedAt}`, (q) => q.mention(memoryId, mentionId, recordedAt));
  }
  for (const factId of state.facts.keys()) await check(`history ${factId}`, (q) => q.history(memoryId, factId));
  for (let i = 0; i < times.length; i += nth) {
    for (const to of [times[i + 1], LATER]) if (to !== undefined) await check(`changes ${times[i]} ${to}`, (q) => q.changes(memoryId, times[i]!, to));
  }
  return compared;
}

/** The story's steps decided one batch each (or all in one batch), as the command service would. */
function decidedStory(memoryId: string, oneBatch: boolean): MemoryRecord[][] {
  const state = initialState();
  let counter = 0;
  const steps = oneBatch ? [ERASURE_STORY.flat()] : ERASURE_STORY;
  return steps.map((step) => {
    const commands = step.map((draft) => ({ ...draft, commandId: `${memoryId}-c${++counter}` }) as Command);
    return decideBatch(memoryId, state, commands, '2100-01-01T00:00:00.000Z').records;
  });
}

describe('projection and replay answer identically with erasures', () => {
  it('over the erasure story, written step by step or in one batch, and as read once the erased keys are destroyed', async () => {
    let compared = 0;
    for (const oneBatch of [false, true]) {
      const memoryId = oneBatch ? 'story-one-batch' : 'story';
      for (const id of await appendWithReadBack(memoryId, decidedStory(memoryId, oneBatch))) compared += await expectParity(id);
    }
    expect(compared).toBeGreaterThan(2000);
  }, 300_000);

  it('over random logs with erasures and the domain’s random histories', async () => {
    let erasures = 0;
    for (const seed of [41, 42]) {
      const { batches, records } = randomLog(`random-${seed}`, seed, 150, { erase: true });
      erasures += records.filter((r) => r.type === 'SubjectErased').length;
      for (const id of await appendWithReadBack(`random-${seed}`, batches)) await expectParity(id, { everyNth: 4 });
    }
    for (const [i, history] of fc.sample(historyArb, { numRuns: 6, seed: 5 }).entries()) {
      const memoryId = `history-${i}`;
      const run = runHistory(history, { memoryId });
      const batches: MemoryRecord[][] = [];
      let from = 0;
      for (const batch of run.batches) {
        if (batch.results === null || batch.logLength === from) continue;
        batches.push(run.log.slice(from, batch.logLength));
        from = batch.logLength;
      }
      erasures += run.log.filter((r) => r.type === 'SubjectErased').length;
      for (const id of await appendWithReadBack(memoryId, batches)) await expectParity(id, { everyNth: 2 });
    }
    expect(erasures).toBeGreaterThan(8);
  }, 600_000);
});
