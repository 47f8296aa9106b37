import { type Command, type MemoryEvent, decideBatch, initialState } from '@memotrace/domain';
import { PostgresEventStore, eventStoreMigrations } from '@memotrace/event-store';
import { memoryStreamId, toNewEvents } from '@memotrace/memory-log';
import { createTestDatabase, migrate } from '@memotrace/postgres';
import { readModelMigrations, rebuildReadModels } from '@memotrace/read-models';
import { ReplayMemoryQueries } from '@memotrace/query-service';

/**
 * `npm run bench:rebuild` (DATABASE_URL, or an embedded PostgreSQL started by the
 * npm script): rebuild throughput of the read models for a generated log of
 * BENCH_REBUILD_EVENTS events (default 1,000,000) over memories of 10,000 events,
 * then exact-replay latency for one memory of BENCH_REPLAY_EVENTS (default 100,000).
 */
const EVENTS = Number(process.env['BENCH_REBUILD_EVENTS'] ?? 1_000_000);
const REPLAY_EVENTS = Number(process.env['BENCH_REPLAY_EVENTS'] ?? 100_000);
const PER_MEMORY = 10_000;
const PER_APPEND = 1_000;
const ENTITIES = 100;

/** A memory's log: entities, a `many` relation, then UPSERT_EDGE facts (one event each), decided in batches. */
function* memoryBatches(memoryId: string, events: number): Generator<MemoryEvent[]> {
  const state = initialState();
  const decide = (commands: Command[], now: string) => {
    // decideBatch evolves the state as it decides (see runHistory).
    return decideBatch(memoryId, state, commands, now).events;
  };
  let at = Date.UTC(2024, 0, 1);
  const now = () => new Date((at += 1000)).toISOString();
  yield decide(
    [
      { op: 'DEFINE_RELATION', commandId: 'rel', rel: 'knows', cardinality: 'many' } as Command,
      ...Array.from({ length: ENTITIES }, (_, i) => ({ op: 'UPSERT_ENTITY', commandId: `ent-${i}`, entityId: `e${i}`, name: `Entity ${i}` }) as Command),
    ],
    now(),
  );
  let written = ENTITIES + 1;
  let n = 0;
  while (written < events) {
    const size = Math.min(PER_APPEND, events - written);
    const commands = Array.from({ length: size }, () => {
      n += 1;
      return { op: 'UPSERT_EDGE', commandId: `c${n}`, factId: `f${n}`, src: `e${n % ENTITIES}`, rel: 'knows', dst: `e${(n * 7 + 3) % ENTITIES}`, validFrom: new Date(Date.UTC(2023, 0, 1) + n * 60_000).toISOString() } as Command;
    });
    const decided = decide(commands, now());
    written += decided.length;
    yield decided;
  }
}

async function main(): Promise<void> {
  const db = await createTestDatabase();
  try {
    await migrate(db.pool, [...eventStoreMigrations, ...readModelMigrations]);
    const store = new PostgresEventStore(db.pool);
    let appended = 0;
    const t0 = performance.now();
    for (let m = 0; appended < EVENTS; m++) {
      const memoryId = `bench-${m}`;
      for (const events of memoryBatches(memoryId, Math.min(PER_MEMORY, EVENTS - appended))) {
        await store.append(memoryStreamId(memoryId), toNewEvents(memoryId, events), { expectedRevision: 'any' });
        appended += events.length;
      }
    }
    console.log(`generated and appended ${appended} events in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    let lastPrint = 0;
    const result = await rebuildReadModels({
      pool: db.pool,
      store,
      onProgress: (p) => {
        if (Date.now() - lastPrint < 2000 && p.phase === 'building') return;
        lastPrint = Date.now();
        console.log(`  ${p.phase}: ${p.done}/${p.total} events, ${p.eventsPerSecond} events/s, ETA ${p.etaSeconds?.toFixed(0) ?? '?'} s`);
      },
    });
    console.log(`rebuild to the head (switched): ${result.applied} events in ${(result.elapsedMs / 1000).toFixed(1)} s = ${result.eventsPerSecond} events/s`);

    const memoryId = 'replay-100k';
    for (const events of memoryBatches(memoryId, REPLAY_EVENTS)) await store.append(memoryStreamId(memoryId), toNewEvents(memoryId, events), { expectedRevision: 'any' });
    const cut = { validAt: '2023-06-01T00:00:00.000Z', recordedAt: '2100-01-01T00:00:00.000Z' };
    const replay = new ReplayMemoryQueries(store);
    const cold0 = performance.now();
    const facts = await replay.facts(memoryId, cut, { src: 'e1' });
    const cold = performance.now() - cold0;
    const warm: number[] = [];
    for (let i = 0; i < 10; i++) {
      const w0 = performance.now();
      await replay.facts(memoryId, cut, { src: 'e1' });
      warm.push(performance.now() - w0);
    }
    warm.sort((a, b) => a - b);
    console.log(`exact replay, one memory of ${REPLAY_EVENTS} events (facts cut, ${facts.length} answers): cold ${cold.toFixed(0)} ms (read + fold), warm median ${warm[5]!.toFixed(0)} ms (cached log, fold only)`);
    await store.close();
  } finally {
    await db.drop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
