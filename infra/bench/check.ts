import { type Command, type MemoryRecord, decideBatch, initialState } from '@memotrace/domain';
import { PostgresLogStore, logStoreMigrations } from '@memotrace/log-store';
import { memoryStreamId, toNewRecords } from '@memotrace/memory-log';
import { createTestDatabase, migrate } from '@memotrace/postgres';
import { PostgresMemoryQueries, readModelMigrations, rebuildReadModels } from '@memotrace/read-models';
import { readConfig } from '@memotrace/runtime';
import pino from 'pino';
import { startMemoTrace } from '../../services/memotrace/src/app';
import { Rng } from './scale/rng';
import { summary } from './stats';

/**
 * `npm run bench:check` (DATABASE_URL, or an embedded PostgreSQL started by the npm script): the answer check
 * (SPEC 5.3) on one memory of BENCH_CHECK_VERSIONS fact versions (default 1,000,000). The memory is 5,000 people
 * with a workplace and a home (relations declared `one`: each move supersedes the last, two versions), people
 * they know and things they like (`many`, an entity and a literal), written as decided commands straight into
 * the log and bulk-loaded into the read models (a rebuild), then served by the all-in-one service (no
 * embeddings). BENCH_CHECK_REQUESTS checks (default 200, after 20 unmeasured) of 100 claims each go over HTTP:
 * half the claims restate a fact of the memory at a random valid time, half are random. Then the same requests
 * by replay (`consistency=replay`): the first folds the whole log, the others reuse the folded state.
 */
const VERSIONS = Number(process.env['BENCH_CHECK_VERSIONS'] ?? 1_000_000);
const REQUESTS = Number(process.env['BENCH_CHECK_REQUESTS'] ?? 200);
const WARMUP = 20;
const CLAIMS = 100;
const PEOPLE = 5_000;
const ORGS = 500;
const CITIES = 200;
const HOBBIES = Array.from({ length: 300 }, (_, i) => `hobby ${i}`);
const PER_BATCH = 1_000;
const MEMORY = 'check-bench';
const START = Date.UTC(2020, 0, 1);
const DAY = 86_400_000;

type Claim = { src: string; rel: string; dst: string | { literal: string; datatype: 'string' }; validAt: string };

/** The memory's log, batch by batch, with the facts it asserted (for claims that restate them). */
function* memoryLog(rng: Rng, asserted: Claim[]): Generator<MemoryRecord[]> {
  const state = initialState();
  let at = Date.UTC(2024, 0, 1);
  const decide = (commands: Command[]) => decideBatch(MEMORY, state, commands, new Date((at += 1000)).toISOString()).records;
  const entity = (entityId: string, name: string) => ({ op: 'UPSERT_ENTITY', commandId: `e:${entityId}`, entityId, name }) as Command;
  const setup = [
    { op: 'DEFINE_RELATION', commandId: 'r1', rel: 'works_at', cardinality: 'one' } as Command,
    { op: 'DEFINE_RELATION', commandId: 'r2', rel: 'lives_in', cardinality: 'one' } as Command,
    ...Array.from({ length: PEOPLE }, (_, i) => entity(`p${i}`, `Person ${i}`)),
    ...Array.from({ length: ORGS }, (_, i) => entity(`o${i}`, `Org ${i}`)),
    ...Array.from({ length: CITIES }, (_, i) => entity(`c${i}`, `City ${i}`)),
  ];
  for (let i = 0; i < setup.length; i += PER_BATCH) yield decide(setup.slice(i, i + PER_BATCH));
  // Each person's timeline moves on with each of its moves: a later move supersedes the earlier one.
  const clock = new Array<number>(PEOPLE).fill(START);
  let versions = 0;
  let n = 0;
  while (versions < VERSIONS) {
    const commands: Command[] = [];
    for (let i = 0; i < PER_BATCH; i++) {
      n += 1;
      const p = rng.int(PEOPLE);
      clock[p] = clock[p]! + rng.int(60) * DAY + DAY;
      const validFrom = new Date(clock[p]!).toISOString();
      const kind = rng.int(10);
      const [rel, dst]: [string, Claim['dst']] =
        kind < 2
          ? ['works_at', `o${rng.int(ORGS)}`]
          : kind < 4
            ? ['lives_in', `c${rng.int(CITIES)}`]
            : kind < 7
              ? ['knows', `p${rng.int(PEOPLE)}`]
              : ['likes', { literal: HOBBIES[rng.int(HOBBIES.length)]!, datatype: 'string' }];
      commands.push({ op: 'UPSERT_EDGE', commandId: `f${n}`, src: `p${p}`, rel, dst, validFrom, validTo: null } as Command);
      if (asserted.length < 100_000) asserted.push({ src: `p${p}`, rel, dst, validAt: validFrom });
    }
    const records = decide(commands);
    versions += records.filter((r) => r.type === 'FactAsserted' || r.type === 'FactSuperseded' || r.type === 'FactRetroCorrected').length;
    yield records;
  }
  console.log(`${n} facts asserted: ${versions} fact versions`);
}

async function main(): Promise<void> {
  const db = await createTestDatabase();
  const rng = new Rng(7);
  try {
    await migrate(db.pool, [...logStoreMigrations, ...readModelMigrations]);
    const store = new PostgresLogStore(db.pool);
    const asserted: Claim[] = [];
    const t0 = performance.now();
    for (const records of memoryLog(rng, asserted))
      await store.append(memoryStreamId(MEMORY), toNewRecords(MEMORY, records), { expectedRevision: 'any' });
    await db.pool.query('ANALYZE mt_events');
    console.log(`log written in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    const rebuilt = await rebuildReadModels({ pool: db.pool, store });
    console.log(`read models bulk-loaded: ${rebuilt.applied} log records in ${(rebuilt.elapsedMs / 1000).toFixed(1)} s`);
    await db.pool.query('VACUUM ANALYZE');
    await store.close();

    const config = { ...readConfig({}), databaseUrl: db.url, port: 0, host: '127.0.0.1' };
    const service = await startMemoTrace(config, pino({ level: 'warn' }), { embeddings: null });
    try {
      const request = () => {
        const claims = Array.from({ length: CLAIMS }, (): Claim => {
          if (rng.int(2) === 0) {
            const fact = asserted[rng.int(asserted.length)]!;
            return { ...fact, validAt: new Date(Date.parse(fact.validAt) + (rng.int(400) - 200) * DAY).toISOString() };
          }
          const rel = ['works_at', 'lives_in', 'knows', 'likes'][rng.int(4)]!;
          const dst = rel === 'works_at' ? `o${rng.int(ORGS)}` : rel === 'lives_in' ? `c${rng.int(CITIES)}` : `p${rng.int(PEOPLE)}`;
          return { src: `p${rng.int(PEOPLE)}`, rel, dst, validAt: new Date(START + rng.int(2000) * DAY).toISOString() };
        });
        return { claims };
      };
      const bodies = Array.from({ length: WARMUP + REQUESTS }, request);
      const verdicts = new Map<string, number>();
      const run = async (query: string) => {
        const times: number[] = [];
        for (const [i, body] of bodies.entries()) {
          const started = performance.now();
          const response = await fetch(`${service.url}/v1/memories/${MEMORY}/check${query}`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify(body),
          });
          const answer = (await response.json()) as { verdicts?: { verdict: string }[] };
          const elapsed = performance.now() - started;
          if (response.status !== 200) throw new Error(`check answered ${response.status}: ${JSON.stringify(answer)}`);
          if (i === 0) console.log(`  first request${query}: ${elapsed.toFixed(0)} ms`);
          if (i >= WARMUP) times.push(elapsed);
          if (query === '') for (const v of answer.verdicts!) verdicts.set(v.verdict, (verdicts.get(v.verdict) ?? 0) + 1);
        }
        return times;
      };
      // The read models' part: the grounds of the same claims read in this process, without HTTP.
      const queries = new PostgresMemoryQueries(db.pool);
      const reads: number[] = [];
      for (const [i, body] of bodies.entries()) {
        const started = performance.now();
        await queries.claimGrounds(MEMORY, new Date().toISOString(), body.claims);
        if (i >= WARMUP) reads.push(performance.now() - started);
      }
      console.log(`grounds of ${CLAIMS} claims read from the read models in process: ${summary(reads)}`);
      const projected = await run('');
      console.log(`check of ${CLAIMS} claims by projection (HTTP): ${summary(projected)}`);
      console.log(`  verdicts: ${[...verdicts].map(([v, k]) => `${v} ${k}`).join(', ')}`);
      const replayed = await run('?consistency=replay');
      console.log(`check of ${CLAIMS} claims by replay (HTTP, the folded state kept): ${summary(replayed)}`);
    } finally {
      await service.close();
    }
  } finally {
    await db.drop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
