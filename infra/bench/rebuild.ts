import { PostgresLogStore, logStoreMigrations } from '@memotrace/log-store';
import { foldForReading } from '@memotrace/domain';
import { memoryStreamId, readMemoryLog, toNewRecords } from '@memotrace/memory-log';
import { createTestDatabase, migrate } from '@memotrace/postgres';
import { readModelMigrations, rebuildReadModels } from '@memotrace/read-models';
import { MemoryLogCache, ReplayMemoryQueries } from '@memotrace/query-service';
import { memoryBatches } from './generated-log';

/**
 * `npm run bench:rebuild` (DATABASE_URL, or an embedded PostgreSQL started by the
 * npm script): rebuild throughput of the read models for a generated log of
 * BENCH_REBUILD_EVENTS events (default 1,000,000) over memories of 10,000 events,
 * then exact-replay latency for one memory of BENCH_REPLAY_EVENTS (default 100,000).
 */
const EVENTS = Number(process.env['BENCH_REBUILD_EVENTS'] ?? 1_000_000);
const REPLAY_EVENTS = Number(process.env['BENCH_REPLAY_EVENTS'] ?? 100_000);
const PER_MEMORY = 10_000;

async function main(): Promise<void> {
  const db = await createTestDatabase();
  try {
    await migrate(db.pool, [...logStoreMigrations, ...readModelMigrations]);
    const store = new PostgresLogStore(db.pool);
    let appended = 0;
    const t0 = performance.now();
    for (let m = 0; appended < EVENTS; m++) {
      const memoryId = `bench-${m}`;
      for (const events of memoryBatches(memoryId, Math.min(PER_MEMORY, EVENTS - appended))) {
        await store.append(memoryStreamId(memoryId), toNewRecords(memoryId, events), { expectedRevision: 'any' });
        appended += events.length;
      }
    }
    console.log(`generated and appended ${appended} events in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    // Statistics as autovacuum would have them: with none, a log page read sorts the rest of the log.
    if (process.env['BENCH_NO_ANALYZE'] !== '1') await db.pool.query('ANALYZE mt_events');
    let lastPrint = 0;
    let phase = '';
    const result = await rebuildReadModels({
      pool: db.pool,
      store,
      // Every phase change, with the time it started (the phases' shares of a rebuild).
      onProgress: (p) => {
        if (Date.now() - lastPrint < 2000 && p.phase === phase) return;
        lastPrint = Date.now();
        phase = p.phase;
        console.log(
          `  ${(p.elapsedMs / 1000).toFixed(1)} s ${p.phase}: ${p.done}/${p.total} events, ` +
            `${p.eventsPerSecond} events/s, ETA ${p.etaSeconds?.toFixed(0) ?? '?'} s`,
        );
      },
    });
    console.log(
      `rebuild to the head (switched): ${result.applied} events in ${(result.elapsedMs / 1000).toFixed(1)} s = ${result.eventsPerSecond} events/s`,
    );

    const memoryId = 'replay-100k';
    for (const events of memoryBatches(memoryId, REPLAY_EVENTS))
      await store.append(memoryStreamId(memoryId), toNewRecords(memoryId, events), { expectedRevision: 'any' });
    const cut = { validAt: '2023-06-01T00:00:00.000Z', recordedAt: '2100-01-01T00:00:00.000Z' };
    const freshReplay = () => new ReplayMemoryQueries(new MemoryLogCache(store));
    const replay = freshReplay();
    const cold0 = performance.now();
    const facts = await replay.facts(memoryId, cut, { src: 'e1' });
    const firstRead = performance.now() - cold0;
    const median = async (ask: () => Promise<unknown> | unknown) => {
      const times: number[] = [];
      for (let i = 0; i < 9; i++) {
        const t0 = performance.now();
        await ask();
        times.push(performance.now() - t0);
      }
      return times.sort((a, b) => a - b)[4]!;
    };
    // Cold as a new query process sees a log written earlier: PostgreSQL has vacuumed it (an
    // insert-only table is autovacuumed after inserts), the process has no cached log or state.
    await db.pool.query('VACUUM ANALYZE mt_events');
    const cold = await median(() => freshReplay().facts(memoryId, cut, { src: 'e1' }));
    // Warm: the log is cached and the whole-log state is kept (only new events are folded).
    const warm = await median(() => replay.facts(memoryId, cut, { src: 'e1' }));
    // A cut in the past folds the cached log from scratch up to it.
    const log = await readMemoryLog(store, memoryId);
    const past = { validAt: cut.validAt, recordedAt: log[Math.floor(log.length * 0.99)]!.meta.recordedAt };
    const pastCut = await median(() => replay.facts(memoryId, past, { src: 'e1' }));
    const foldOnly = await median(() => foldForReading(log));
    console.log(
      `exact replay, one memory of ${REPLAY_EVENTS} events (facts cut, ${facts.length} answers): ` +
        `cold median ${cold.toFixed(0)} ms (read + decode + fold, ` +
        `fresh caches, vacuumed log; the first read right after the append: ${firstRead.toFixed(0)} ms), ` +
        `warm median ${warm.toFixed(1)} ms (cached log and state), past cut ${pastCut.toFixed(0)} ms (cached log, full fold), ` +
        `fold only ${foldOnly.toFixed(0)} ms`,
    );
    await store.close();
  } finally {
    await db.drop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
