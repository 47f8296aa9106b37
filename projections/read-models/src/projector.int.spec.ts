import { type Command, type MemoryRecord, entitiesAt, factsAt, fold } from '@memotrace/domain';
import { type ProjectedRecord, type Projection, projectedPosition } from '@memotrace/projection';
import { READ_MODELS_PROJECTION, readModelsProjection } from './read-models-projection';
import { type Harness, MemoryWriter, openHarness } from './testing/pg-harness';
import { readAfterErasures } from './testing/read-after-erasure';
import { randomLog } from './testing/random-log';
import { around, expectSameAsReplay, validBounds } from './testing/replay-compare';

/**
 * The runtime: one transaction per batch with the checkpoint, so no event is
 * applied twice (restarts, concurrent projectors, failed batches) and
 * waitForPosition gives read-your-writes.
 */
let harness: Harness;

beforeEach(async () => {
  harness = await openHarness();
});

afterEach(async () => {
  await harness?.close();
});

/** The read-models projection, recording every position it handled (in committed and rolled-back transactions). */
function spy(options: { failFirst?: number } = {}): Projection & { handled: number[]; calls: number } {
  const wrapper = {
    ...readModelsProjection,
    handled: [] as number[],
    calls: 0,
    async handle(events: readonly ProjectedRecord[], tx: Parameters<Projection['handle']>[1]) {
      wrapper.calls += 1;
      await readModelsProjection.handle(events, tx);
      // Fail after writing: the rollback must take the writes with it.
      if (wrapper.calls <= (options.failFirst ?? 0)) throw new Error(`induced failure ${wrapper.calls}`);
      wrapper.handled.push(...events.map((e) => e.position));
    },
  };
  return wrapper;
}

async function appendRandom(memoryId: string, seed: number, commands: number): Promise<number> {
  let last = 0;
  for (const batch of randomLog(memoryId, seed, commands, { topics: true }).batches) last = await harness.append(memoryId, batch);
  return last;
}

async function expectFactsAsReplay(memoryId: string): Promise<void> {
  const log = await harness.log(memoryId);
  const recordedAts = [...new Set(log.map((e) => e.meta.recordedAt))];
  for (const r of recordedAts) {
    expect(await harness.queries.facts(memoryId, { validAt: '*', recordedAt: r }, {})).toEqual(factsAt(fold(log, r), '*'));
  }
  const { rows } = await harness.db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM rm_fact_versions WHERE memory_id = $1', [memoryId]);
  expect(rows[0]!.n).toBe([...fold(log).facts.values()].reduce((n, f) => n + f.versions.length, 0));
}

/** Every position up to `head` whose record changes something (not the log's CommandUnchanged records), once. */
const everyPositionOnce = async (handled: number[], head: number) => {
  const { rows } = await harness.db.pool.query<{ position: string }>(
    "SELECT position FROM mt_events WHERE position <= $1 AND type <> 'CommandUnchanged' ORDER BY position",
    [head],
  );
  expect(rows.length).toBeGreaterThan(head / 2);
  expect([...handled].sort((a, b) => a - b)).toEqual(rows.map((r) => Number(r.position)));
};

describe('startProjector with erasures', () => {
  it('answers as replay however the log is cut into batches, erasures and what they erase in one batch or apart, shredded reads too', async () => {
    const memories: string[] = [];
    let head = 0;
    for (const seed of [31, 32]) {
      const { batches } = randomLog(`erasing-${seed}`, seed, 150, { erase: true });
      const read = readAfterErasures(batches);
      let from = 0;
      for (const batch of batches) {
        head = await harness.append(`erasing-${seed}`, batch);
        head = await harness.append(`erasing-${seed}-read`, read.slice(from, (from += batch.length)));
      }
      memories.push(`erasing-${seed}`, `erasing-${seed}-read`);
    }
    const { rows } = await harness.db.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM mt_events WHERE type = 'SubjectErased'`);
    expect(rows[0]!.n).toBeGreaterThan(8);
    // Batches of one record (every erasure apart from what it erases), then of many (most together), on fresh read models each.
    for (const batchSize of [1, 13, 1000]) {
      await harness.db.pool.query(
        'TRUNCATE rm_fact_versions, rm_event_versions, rm_episode_versions, rm_entities, rm_entity_labels, rm_entity_merges, ' +
          'rm_relations, rm_event_links, rm_mentions, rm_erasures, rm_checkpoints',
      );
      const projector = await harness.startProjector({ batchSize });
      expect(await projector.waitForPosition(head, 30_000)).toBe(true);
      await projector.stop();
      for (const memoryId of memories) {
        const log = await harness.log(memoryId);
        const recordedAts = [...new Set(log.map((e) => e.meta.recordedAt))];
        await expectSameAsReplay(harness.queries, memoryId, log, {
          recordedAts: around(recordedAts).filter((_, k) => k % 9 === 4),
          validAts: ['*', ...validBounds(log).filter((_, k) => k % 10 === 0)],
          entityIds: [...fold(log).entities.keys()],
        });
        for (const r of recordedAts.filter((_, k) => k % 5 === 0)) {
          expect(await harness.queries.entities(memoryId, r, { name: 'a', match: 'prefix' })).toEqual(
            entitiesAt(fold(log, r), { name: 'a', match: 'prefix' }),
          );
        }
      }
    }
  }, 240_000);
});

describe('startProjector', () => {
  it('resumes from its checkpoint after a restart without applying any event twice', async () => {
    const first = spy();
    const head1 = await appendRandom('restart', 1, 150);
    const p1 = await harness.startProjector({ projections: [first], batchSize: 40 });
    expect(await p1.waitForPosition(head1, 10_000)).toBe(true);
    await p1.stop();
    expect(await projectedPosition(harness.db.pool, READ_MODELS_PROJECTION)).toBe(head1);

    const head2 = await appendRandom('restart-2', 2, 150);
    const second = spy();
    const p2 = await harness.startProjector({ projections: [second], batchSize: 40 });
    expect(p2.position()).toBe(head1);
    expect(await p2.waitForPosition(head2, 10_000)).toBe(true);
    expect(Math.min(...second.handled)).toBe(head1 + 1);
    await everyPositionOnce([...first.handled, ...second.handled], head2);
    await expectFactsAsReplay('restart');
    await expectFactsAsReplay('restart-2');
  });

  it('two projectors on one database share the work without double-applying (checkpoint row lock)', async () => {
    const a = spy();
    const b = spy();
    const pa = await harness.startProjector({ projections: [a], batchSize: 7 });
    const pb = await harness.startProjector({ projections: [b], batchSize: 11 });
    const head = await appendRandom('concurrent', 3, 200);
    expect(await pa.waitForPosition(head, 10_000)).toBe(true);
    expect(await pb.waitForPosition(head, 10_000)).toBe(true);
    await everyPositionOnce([...a.handled, ...b.handled], head);
    await expectFactsAsReplay('concurrent');
  });

  it('rolls a failed batch back, reports it, and retries until it commits', async () => {
    const errors: Error[] = [];
    const flaky = spy({ failFirst: 3 });
    const head = await appendRandom('flaky', 4, 100);
    const projector = await harness.startProjector({ projections: [flaky], batchSize: 25, retryMs: 10, onError: (e) => errors.push(e) });
    expect(await projector.waitForPosition(head, 10_000)).toBe(true);
    expect(errors.map((e) => e.message)).toEqual(['induced failure 1', 'induced failure 2', 'induced failure 3']);
    await everyPositionOnce(flaky.handled, head);
    await expectFactsAsReplay('flaky');
  });

  it('waitForPosition: read-your-writes for live appends, false on timeout and after stop', async () => {
    const projector = await harness.startProjector({ batchSize: 500 });
    expect(projector.position()).toBe(0);
    expect(await projector.waitForPosition(0, 10)).toBe(true);
    expect(await projector.waitForPosition(1, 30)).toBe(false);
    const m = new MemoryWriter(harness, 'ryw');
    const waiting = projector.waitForPosition(1, 10_000);
    const position = (await m.when({ op: 'UPSERT_ENTITY', entityId: 'a', name: 'A', recordedAt: '2024-05-06T00:00:00.000Z' }))!;
    expect(position).toBe(1);
    expect(await waiting).toBe(true);
    const next = (await m.when({
      op: 'UPSERT_EDGE',
      factId: 'f',
      src: 'a',
      rel: 'age',
      dst: { literal: 1, datatype: 'number' },
      recordedAt: '2024-05-06T00:00:00.000Z',
    }))!;
    expect(await projector.waitForPosition(next, 10_000)).toBe(true);
    expect(await harness.queries.facts('ryw', { validAt: '*', recordedAt: '2024-05-06T00:00:00.000Z' }, {})).toHaveLength(1);
    expect(projector.position()).toBe(next);
    expect(await projectedPosition(harness.db.pool, READ_MODELS_PROJECTION)).toBe(next);
    const pending = projector.waitForPosition(next + 1, 10_000);
    await projector.stop();
    expect(await pending).toBe(false);
    expect(await projector.waitForPosition(next + 1, 10_000)).toBe(false);
  });

  it('catches up a 20k-event log (throughput)', async () => {
    const m = new MemoryWriter(harness, 'bulk');
    const at = (i: number) => new Date(Date.UTC(2024, 0, 1) + i * 1000).toISOString();
    const entities = 2000;
    let head = 0;
    let clock = 0;
    const batches: Command[][] = [];
    const batch = (commands: Omit<Command, 'commandId'>[]) => batches.push(commands as Command[]);
    for (let i = 0; i < entities; i += 1000) {
      batch(
        Array.from({ length: 1000 }, (_, k) => ({
          op: 'UPSERT_ENTITY' as const,
          entityId: `e${i + k}`,
          name: `Entity ${i + k}`,
          types: ['t'],
          recordedAt: at(clock),
        })),
      );
    }
    for (let round = 0; round < 10; round++) {
      clock += 1;
      batch(
        Array.from({ length: 1000 }, (_, k) => ({
          op: 'UPSERT_EDGE' as const,
          src: `e${(k * 7 + round) % entities}`,
          rel: 'knows',
          dst: `e${(k * 13 + 1) % entities}`,
          confidence: ((round + 1) * k) / 10_000,
          recordedAt: at(clock),
        })),
      );
      batch(Array.from({ length: 800 }, (_, k) => ({ op: 'RECORD_MENTION' as const, docId: `d${round}`, text: `turn ${k}`, recordedAt: at(clock) })));
    }
    for (const commands of batches) head = (await m.when(...(commands as Parameters<MemoryWriter['when']>))) ?? head;
    expect(head).toBe(20_000);

    const started = performance.now();
    const projector = await harness.startProjector({ batchSize: 500 });
    expect(await projector.waitForPosition(head, 120_000)).toBe(true);
    const seconds = (performance.now() - started) / 1000;
    console.log(`projector caught up ${head} events in ${seconds.toFixed(2)} s: ${Math.round(head / seconds)} events/s`);
    const log: MemoryRecord[] = await harness.log('bulk');
    const state = fold(log);
    const r = log[log.length - 1]!.meta.recordedAt;
    const timed = async <T>(query: () => Promise<T>): Promise<[T, string]> => {
      const t = performance.now();
      const answer = await query();
      return [answer, (performance.now() - t).toFixed(1)];
    };
    const [all, allMs] = await timed(() => harness.queries.facts('bulk', { validAt: '*', recordedAt: r }, {}));
    expect(all).toEqual(factsAt(state, '*'));
    const [some, someMs] = await timed(() => harness.queries.facts('bulk', { validAt: r, recordedAt: r }, { src: 'e7' }));
    expect(some).toEqual(factsAt(state, r, { src: 'e7' }));
    console.log(`facts query: all ${all.length} facts in ${allMs} ms; a src-filtered cut (${some.length}) in ${someMs} ms`);
    expect((await harness.queries.mentions('bulk', r)).length).toBe(8000);
  }, 180_000);
});
