import { loadavg } from 'node:os';
import { PostgresLogStore, logStoreMigrations } from '@memotrace/log-store';
import { OpeningLogStore } from '@memotrace/memory-log';
import { createTestDatabase, migrate } from '@memotrace/postgres';
import { CachingKeyStore, PostgresSubjectKeyStore, databaseMasterKey, subjectKeyMigrations } from '@memotrace/subject-keys';
import { handlerIngest, takenApart } from './handler-ingest';
import { describeIngest, int, median, pct } from './paired-rounds';
import { wholeMemoryReads } from './reads';
import { serviceIngest } from './service-ingest';
import { COMMANDS_PER_BATCH } from './workload';

/**
 * `npm run bench:sealing` (an embedded PostgreSQL started by the npm script; on another server:
 * `DATABASE_URL=... npx tsx infra/bench/sealing/main.ts`): what sealing content costs, both
 * variants in the same run on the same server, in paired rounds (see paired-rounds.ts):
 * 1. ingest through the command handler (handler-ingest.ts), then whole-memory reads of what it
 *    wrote (reads.ts) and one more memory per variant taken apart step by step;
 * 2. ingest through the running service's HTTP API (service-ingest.ts).
 * Sizes: BENCH_SEALING_ROUNDS (6) and BENCH_SEALING_BATCHES (10) of 500 commands per memory.
 */
const ROUNDS = Number(process.env['BENCH_SEALING_ROUNDS'] ?? 6);
const BATCHES = Number(process.env['BENCH_SEALING_BATCHES'] ?? 10);
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

async function main(): Promise<void> {
  const log = (line: string) => console.log(line);
  const db = await createTestDatabase();
  try {
    await migrate(db.pool, [...logStoreMigrations, ...subjectKeyMigrations]);
    const version = (await db.pool.query<{ v: string }>("SELECT current_setting('server_version') AS v")).rows[0]!.v;
    log(`sealing bench on PostgreSQL ${version}: ${ROUNDS} paired rounds × ${BATCHES} batches of ${COMMANDS_PER_BATCH} commands`);
    log(`load average ${load()}`);
    const raw = new PostgresLogStore(db.pool);
    const masterKey = await databaseMasterKey(db.pool);
    const keyStore = new CachingKeyStore(new PostgresSubjectKeyStore(db.pool, masterKey));
    const opening = new OpeningLogStore(raw, keyStore);
    const bench = { pool: db.pool, database: new URL(db.url).pathname.slice(1), raw, opening, keyStore, rounds: ROUNDS, batches: BATCHES, log };

    log('ingest through the command handler:');
    const handler = await handlerIngest(bench);
    for (const line of describeIngest('handler ingest', handler)) log(line);
    const { stored } = handler;
    log(
      `stored data + metadata per memory: plain ${int(stored.plain / 1024)} KiB, sealed ${int(stored.sealed / 1024)} KiB ` +
        `(${pct(stored.sealed / stored.plain - 1)}), and its key sets ${int(stored.keySets / 1024)} KiB`,
    );
    for (const line of await wholeMemoryReads(raw, opening, db.pool, masterKey, ROUNDS)) log(line);
    log(await takenApart(bench));

    log(`ingest through POST /v1/memories/{id}/commands of the service (load average ${load()}):`);
    const service = await serviceIngest({ rounds: ROUNDS, batches: BATCHES, log });
    for (const line of describeIngest('service ingest', service)) log(line);
    const readable = (name: string) => `${(median(service.readable.get(name)!) * 1000).toFixed(0)} ms`;
    log(`service: the last entity readable (minPosition) after the last answer: plain ${readable('plain')}, sealed ${readable('sealed')} (medians)`);
    log(`load average at the end ${load()}`);
  } finally {
    await db.drop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
