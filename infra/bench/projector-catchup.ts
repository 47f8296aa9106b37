import { type ChildProcess, spawn } from 'node:child_process';
import { READ_MODELS_PROJECTION } from '@memotrace/read-models';
import { resolve } from 'node:path';
import { PostgresLogStore, logStoreMigrations } from '@memotrace/log-store';
import { memoryStreamId, toNewRecords } from '@memotrace/memory-log';
import { createTestDatabase, migrate } from '@memotrace/postgres';
import { readModelMigrations } from '@memotrace/read-models';
import { projectedPosition } from '@memotrace/projection';
import type { Pool } from 'pg';
import { memoryBatches } from './generated-log';

/**
 * `npm run bench:projectors` (DATABASE_URL, or an embedded PostgreSQL started by the npm
 * script): catch-up time of projector processes (services/projector/src/main.ts) over a
 * generated log of BENCH_CATCHUP_EVENTS events (default 100,000) in memories of 1,000
 * events: one process over the whole log, then PROJECTOR_PARTITIONS=2 with one and with
 * two processes. The read models are emptied between runs. Catch-up is timed from the
 * spawn (process start-up included; reported separately) to every partition at the head.
 */
const EVENTS = Number(process.env['BENCH_CATCHUP_EVENTS'] ?? 100_000);
const PER_MEMORY = 1_000;
const ROOT = resolve(__dirname, '../..');

interface Run {
  label: string;
  partitions: number;
  processes: number;
}

async function emptyReadModels(pool: Pool): Promise<void> {
  const { rows } = await pool.query<{ name: string }>(
    "SELECT tablename AS name FROM pg_tables WHERE schemaname = current_schema() AND tablename LIKE 'rm\\_%'",
  );
  await pool.query(`TRUNCATE ${rows.map((r) => r.name).join(', ')}`);
}

async function catchUp(url: string, pool: Pool, head: number, run: Run): Promise<{ startupMs: number; totalMs: number }> {
  const t0 = performance.now();
  let startupMs = 0;
  const children: ChildProcess[] = Array.from({ length: run.processes }, () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'services/projector/src/main.ts'], {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: url, LOG_LEVEL: 'info', PROJECTOR_PARTITIONS: String(run.partitions) },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    child.stdout!.once('data', () => (startupMs = Math.max(startupMs, performance.now() - t0)));
    return child;
  });
  while ((await projectedPosition(pool, READ_MODELS_PROJECTION)) < head) await new Promise((r) => setTimeout(r, 50));
  const totalMs = performance.now() - t0;
  await Promise.all(
    children.map((child) => {
      const exited = new Promise((done) => child.once('exit', done));
      child.kill('SIGTERM');
      return exited;
    }),
  );
  return { startupMs, totalMs };
}

async function main(): Promise<void> {
  const db = await createTestDatabase();
  try {
    await migrate(db.pool, [...logStoreMigrations, ...readModelMigrations]);
    const store = new PostgresLogStore(db.pool);
    let appended = 0;
    for (let m = 0; appended < EVENTS; m++) {
      const memoryId = `catchup-${m}`;
      for (const events of memoryBatches(memoryId, Math.min(PER_MEMORY, EVENTS - appended))) {
        await store.append(memoryStreamId(memoryId), toNewRecords(memoryId, events), { expectedRevision: 'any' });
        appended += events.length;
      }
    }
    // Statistics as autovacuum would have them: with none, every log page read sorts the rest of the log.
    if (process.env['BENCH_NO_ANALYZE'] !== '1') await db.pool.query('ANALYZE mt_events');
    const head = await store.headPosition();
    console.log(`log: ${appended} events in ${Math.ceil(EVENTS / PER_MEMORY)} memories`);
    const runs: Run[] = [
      { label: '1 process, whole log', partitions: 1, processes: 1 },
      { label: '1 process, 2 partitions', partitions: 2, processes: 1 },
      { label: '2 processes, 2 partitions', partitions: 2, processes: 2 },
    ];
    const results: number[] = [];
    for (const run of runs) {
      await emptyReadModels(db.pool);
      const { startupMs, totalMs } = await catchUp(db.url, db.pool, head, run);
      const applyMs = totalMs - startupMs;
      results.push(applyMs);
      console.log(
        `${run.label}: caught up in ${(totalMs / 1000).toFixed(1)} s (start-up ${(startupMs / 1000).toFixed(1)} s), ` +
          `${Math.round((appended / applyMs) * 1000)} events/s after start-up`,
      );
    }
    console.log(
      `speed-up of 2 processes over 1 (2 partitions): ${(results[1]! / results[2]!).toFixed(2)}x; ` +
        `over the single whole-log process: ${(results[0]! / results[2]!).toFixed(2)}x`,
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
