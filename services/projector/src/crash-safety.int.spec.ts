import { type ChildProcess, spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { PostgresLogStore, logStoreMigrations } from '@memotrace/log-store';
import { type TestDatabase, createTestDatabase, migrate } from '@memotrace/postgres';
import { PostgresMemoryQueries, READ_MODELS_PROJECTION, readModelMigrations } from '@memotrace/read-models';
import { projectedPosition } from '@memotrace/projection';
import { MemoryLogCache, ReplayMemoryQueries, verifyMemory } from '@memotrace/query-service';
import { projectorEnv } from './testing/child-env';
import { appendMemories, expectedRowCounts, generateMemories, rowCounts } from './testing/ingest';

/**
 * Issue 4, projector crash safety: the projector runs as its own process
 * (services/projector/src/main.ts) while commands are appended to the log; it is
 * SIGKILLed at KILLS random moments and restarted. At the end the read models must
 * equal replay: the checkpoint is the log head, every table holds exactly as many
 * rows as the folded logs have versions (nothing lost, nothing applied twice), and
 * sampled memories verify clean at every validity bound.
 *
 * CRASH_COMMANDS (default 50,000, the size) sets the ingest size, CRASH_KILLS
 * (default 10) the number of SIGKILLs.
 */
const COMMANDS = Number(process.env['CRASH_COMMANDS'] ?? 50_000);
const KILLS = Number(process.env['CRASH_KILLS'] ?? 10);
// The ingest lasts at least this long, so the kills land while there is work to do.
const INGEST_MS = Number(process.env['CRASH_INGEST_MS'] ?? 15_000);
const ROOT = resolve(__dirname, '../../..');

describe('projector crash safety (SIGKILL during ingest)', () => {
  let db: TestDatabase;
  let store: PostgresLogStore;
  let child: ChildProcess | undefined;
  let output = '';

  beforeAll(async () => {
    db = await createTestDatabase();
    await migrate(db.pool, [...logStoreMigrations, ...readModelMigrations]);
    store = new PostgresLogStore(db.pool);
  });
  afterAll(async () => {
    child?.kill('SIGKILL');
    await store.close();
    await db.drop();
  });

  const startProjector = () => {
    // One process (no tsx wrapper), so SIGKILL hits the projector itself.
    child = spawn(process.execPath, ['--import', 'tsx', 'services/projector/src/main.ts'], {
      cwd: ROOT,
      env: projectorEnv({ DATABASE_URL: db.url, LOG_LEVEL: 'warn' }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  };
  const kill = async (signal: NodeJS.Signals) => {
    const c = child!;
    if (c.exitCode !== null || c.signalCode !== null) return;
    const exited = new Promise((done) => c.once('exit', done));
    c.kill(signal);
    await exited;
  };
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

  it(`loses and duplicates nothing over ${KILLS} kills`, async () => {
    const memories = generateMemories(COMMANDS, 'crash');

    startProjector();
    let ingesting = true;
    const positionsAtKill: number[] = [];
    const killer = (async () => {
      let last = await projectedPosition(db.pool, READ_MODELS_PROJECTION);
      for (let i = 0; i < KILLS; i++) {
        // Once the restarted projector has committed something, kill it at a random moment of its work.
        // (or at once when it has nothing left to do: the writers are done and it is at the head)
        const deadline = Date.now() + 30_000;
        const waiting = async () => {
          const position = await projectedPosition(db.pool, READ_MODELS_PROJECTION);
          return position <= last && (ingesting || position < (await store.headPosition())) && Date.now() < deadline;
        };
        while (await waiting()) await sleep(20);
        await sleep(Math.random() * 300);
        last = await projectedPosition(db.pool, READ_MODELS_PROJECTION);
        positionsAtKill.push(last);
        await kill('SIGKILL');
        startProjector();
      }
    })();

    // Four writers, paced over INGEST_MS at least: a projector restart takes a second or two,
    // so an ingest that finished at once would leave every kill to find the projector idle at the head.
    await appendMemories(store, memories, 4, INGEST_MS);
    ingesting = false;
    await killer;

    // The last projector catches up to the head (re-read: the safe head trails open transactions).
    const deadline = Date.now() + 300_000;
    while ((await projectedPosition(db.pool, READ_MODELS_PROJECTION)) < (await store.headPosition()) && Date.now() < deadline) await sleep(200);
    await kill('SIGTERM');
    const head = await store.headPosition();
    expect(await projectedPosition(db.pool, READ_MODELS_PROJECTION)).toBe(head);
    // Kills landed while there was work to do (the checkpoint moved between them).
    // (late kills may find it idle at the head once a small ingest is done; most land mid-work)
    expect(positionsAtKill).toHaveLength(KILLS);
    expect(new Set(positionsAtKill).size).toBeGreaterThan(1);
    expect(positionsAtKill.filter((p) => p < head).length).toBeGreaterThan(0);

    const { rows: checkpoints } = await db.pool.query('SELECT projection, position::int AS position FROM rm_checkpoints');
    expect(checkpoints).toEqual([{ projection: READ_MODELS_PROJECTION, position: head }]);

    // Row counts equal the folded logs: nothing lost, nothing applied twice.
    expect(await rowCounts(db.pool)).toEqual(expectedRowCounts(memories));

    // And answers equal replay, at every validity bound, on a sample of memories.
    const projection = new PostgresMemoryQueries(db.pool);
    const replay = new ReplayMemoryQueries(new MemoryLogCache(store));
    const sample = memories.filter((_, i) => i % Math.max(1, Math.floor(memories.length / 40)) === 0);
    for (const { memoryId } of sample) {
      const report = await verifyMemory({ projection, replay, store }, memoryId, '9999-12-31T23:59:59.999Z');
      if (!report.consistent) throw new Error(`${memoryId}: ${JSON.stringify(report.differences.slice(0, 3))}\n${output.slice(-2000)}`);
    }
  }, 900_000);
});
