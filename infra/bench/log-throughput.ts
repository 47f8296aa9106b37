import { randomUUID } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { logStoreMigrations, PostgresLogStore, type NewRecord, type StoredRecord } from '@memotrace/log-store';
import { createPool, migrate, startEmbeddedPostgres, takeOverEmbeddedShutdown, type RunningPostgres } from '@memotrace/postgres';
import { summary } from './stats';

/**
 * `npm run bench:log`: the event log alone (no HTTP, no projections), against DATABASE_URL
 * when set, else a throw-away embedded PostgreSQL 18:
 *  - append throughput with single-event appends and with 1,000-event batches,
 *  - live subscription delivery latency: one event appended at a time, time from the
 *    append call to delivery by a subscriber that is already live.
 * Each run works in a fresh database, so it measures the same thing every time.
 */
const SINGLE_APPENDS = Number(process.env.BENCH_SINGLE ?? 5_000);
const BATCHED_EVENTS = Number(process.env.BENCH_BATCHED ?? 200_000);
const BATCH_SIZE = 1_000;
const LATENCY_SAMPLES = Number(process.env.BENCH_LATENCY ?? 2_000);
const WARMUP_APPENDS = 200;

function event(n: number, tags?: string[]): NewRecord {
  return {
    recordId: randomUUID(),
    type: 'FactAsserted',
    // Roughly the size of a real FactAsserted payload.
    data: {
      factId: `fact-${n}`,
      src: `entity-${n % 977}`,
      rel: 'works_at',
      dst: `entity-${(n * 7) % 977}`,
      validFrom: '2024-05-06T00:00:00.000Z',
      validTo: null,
      props: { n },
    },
    metadata: { commandId: randomUUID(), recordedAt: new Date().toISOString(), actor: 'bench', reason: null },
    ...(tags ? { tags } : {}),
  };
}

const rate = (events: number, ms: number) => Math.round((events / ms) * 1000).toLocaleString('en-US');

async function main(): Promise<void> {
  const server = await databaseServer();
  stopOnSignal(server);
  try {
    await runOn(server);
  } finally {
    await server.stop();
  }
}

async function runOn(server: Server): Promise<void> {
  const databaseName = `mt_bench_${Date.now().toString(36)}`;
  const databaseUrl = await createDatabase(server.url, databaseName);
  const pool = createPool(databaseUrl, { max: 4 });
  const store = new PostgresLogStore(pool);
  try {
    await migrate(pool, logStoreMigrations);
    const version = (await pool.query<{ v: string }>("SELECT current_setting('server_version') AS v")).rows[0]!.v;
    console.log(`log bench on PostgreSQL ${version} (${server.embedded ? 'embedded' : 'DATABASE_URL'})`);

    for (let i = 0; i < WARMUP_APPENDS; i++) await store.append('warmup', [event(i)], { expectedRevision: 'any' });

    // 1. Single-event appends, one after the other, each with an expected revision (100 streams).
    let started = performance.now();
    for (let i = 0; i < SINGLE_APPENDS; i++) {
      await store.append(`single-${i % 100}`, [event(i, [`fact:${i % 500}`])], { expectedRevision: i < 100 ? 'no_stream' : Math.floor(i / 100) - 1 });
    }
    let elapsed = performance.now() - started;
    console.log(
      `append, 1 event per append:         ${rate(SINGLE_APPENDS, elapsed)} events/s  ` +
        `(${SINGLE_APPENDS} appends in ${(elapsed / 1000).toFixed(2)} s, ${(elapsed / SINGLE_APPENDS).toFixed(2)} ms per append)`,
    );

    // 2. Batched appends of 1,000 events, every event tagged (like a memory's fact events), 10 streams.
    //    Only the append calls are timed; building the next batch is not.
    elapsed = 0;
    const batchCount = BATCHED_EVENTS / BATCH_SIZE;
    for (let b = 0; b < batchCount; b++) {
      const batch = Array.from({ length: BATCH_SIZE }, (_, i) => event(b * BATCH_SIZE + i, [`fact:${(b * BATCH_SIZE + i) % 5_000}`]));
      started = performance.now();
      await store.append(`batched-${b % 10}`, batch, { expectedRevision: b < 10 ? 'no_stream' : Math.floor(b / 10) * BATCH_SIZE - 1 });
      elapsed += performance.now() - started;
    }
    console.log(
      `append, ${BATCH_SIZE} events per append:      ${rate(BATCHED_EVENTS, elapsed)} events/s  ` +
        `(${BATCHED_EVENTS} events in ${(elapsed / 1000).toFixed(2)} s, ${(elapsed / batchCount).toFixed(1)} ms per append)`,
    );

    // 2b. The same 200,000 events from two concurrent writers, each on its own streams (wall clock):
    //     what the log absorbs when PostgreSQL may use both cores.
    started = performance.now();
    await Promise.all(
      [0, 1].map(async (w) => {
        for (let b = 0; b < batchCount / 2; b++) {
          const batch = Array.from({ length: BATCH_SIZE }, (_, i) => event(b * BATCH_SIZE + i, [`fact:${(b * BATCH_SIZE + i) % 5_000}`]));
          await store.append(`parallel-${w}-${b % 5}`, batch, { expectedRevision: b < 5 ? 'no_stream' : Math.floor(b / 5) * BATCH_SIZE - 1 });
        }
      }),
    );
    elapsed = performance.now() - started;
    console.log(
      `append, ${BATCH_SIZE} per append, 2 writers:  ${rate(BATCHED_EVENTS, elapsed)} events/s  ` +
        `(${BATCHED_EVENTS} events in ${(elapsed / 1000).toFixed(2)} s)`,
    );

    // 3. Delivery latency to a live subscriber, one event at a time.
    const latency = await deliveryLatency(store, LATENCY_SAMPLES);
    console.log(`delivery latency, append → live subscriber: ${summary(latency)}`);
  } finally {
    await store.close();
    await pool.end();
    await dropDatabase(server.url, databaseName);
  }
}

/** Ctrl-C must not leave an embedded server running: stop it, then exit. */
function stopOnSignal(server: Server): void {
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.once(signal, () => {
      void server.stop().finally(() => process.exit(130));
    });
  }
}

/** Appends one event, waits until the live subscriber has it, repeats; latency = append call → delivery. */
async function deliveryLatency(store: PostgresLogStore, samples: number): Promise<number[]> {
  const head = await store.headPosition();
  const sentAt = new Map<string, number>();
  const latencies: number[] = [];
  let delivered: ((event: StoredRecord) => void) | undefined;
  let live: (() => void) | undefined;
  const isLive = new Promise<void>((resolve) => (live = resolve));
  let fail: (error: unknown) => void = () => undefined;
  const failed = new Promise<never>((_, reject) => (fail = reject));
  failed.catch(() => undefined); // observed through the races below
  const subscription = store.subscribe({ fromPosition: head, streamPrefix: 'latency-' }).subscribe({
    next: (stored) => {
      const start = sentAt.get(stored.recordId);
      if (start === undefined) return;
      latencies.push(performance.now() - start);
      delivered?.(stored);
    },
    error: (error: unknown) => fail(error),
  });
  try {
    // The subscription is live once a first (unmeasured) event comes through.
    const probe = event(-1);
    sentAt.set(probe.recordId, performance.now());
    delivered = () => live?.();
    await store.append('latency-probe', [probe], { expectedRevision: 'no_stream' });
    await withTimeout(Promise.race([isLive, failed]), 10_000, 'subscription did not deliver the probe event');
    latencies.length = 0;

    for (let i = 0; i < samples; i++) {
      const next = event(i);
      const arrived = new Promise<void>((resolve) => (delivered = () => resolve()));
      sentAt.set(next.recordId, performance.now());
      await store.append('latency-stream', [next], { expectedRevision: i === 0 ? 'no_stream' : i - 1 });
      await withTimeout(Promise.race([arrived, failed]), 10_000, `event ${i} was not delivered`);
    }
    return latencies;
  } finally {
    subscription.unsubscribe();
  }
}

async function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([promise, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(message)), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

interface Server {
  url: string;
  embedded: boolean;
  stop(): Promise<void>;
}

async function databaseServer(): Promise<Server> {
  if (process.env.DATABASE_URL) return { url: process.env.DATABASE_URL, embedded: false, stop: async () => undefined };
  await takeOverEmbeddedShutdown();
  const dir = mkdtempSync(join(tmpdir(), 'memotrace-log-bench-'));
  chmodSync(dir, 0o755); // as root the embedded server runs as the postgres user
  let running: RunningPostgres;
  try {
    running = await startEmbeddedPostgres({ dataDir: join(dir, 'data') });
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  let stopping: Promise<void> | undefined;
  return {
    url: running.url,
    embedded: true,
    stop: () => (stopping ??= running.stop().finally(() => rmSync(dir, { recursive: true, force: true }))),
  };
}

async function createDatabase(serverUrl: string, name: string): Promise<string> {
  const admin = createPool(serverUrl, { max: 1 });
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

async function dropDatabase(serverUrl: string, name: string): Promise<void> {
  const admin = createPool(serverUrl, { max: 1 });
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  } finally {
    await admin.end();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
