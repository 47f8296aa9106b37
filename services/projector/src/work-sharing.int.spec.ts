import { type ChildProcess, spawn } from 'node:child_process';
import { READ_MODELS_PROJECTION } from '@memotrace/read-models';
import { resolve } from 'node:path';
import { PostgresLogStore, logStoreMigrations } from '@memotrace/log-store';
import { type TestDatabase, createTestDatabase, migrate } from '@memotrace/postgres';
import { PostgresMemoryQueries, readModelMigrations } from '@memotrace/read-models';
import { layoutCheckpoints, projectedPosition } from '@memotrace/projection';
import { MemoryLogCache, ReplayMemoryQueries, verifyMemory } from '@memotrace/query-service';
import { appendMemories, expectedRowCounts, generateMemories, rowCounts } from './testing/ingest';
import { projectorEnv } from './testing/child-env';

/**
 * Issue 4, work-sharing projectors: three projector processes (services/projector/src/main.ts,
 * PROJECTOR_PARTITIONS=4) follow one log while it is written; all three get partitions;
 * one is SIGKILLed mid-way and the two others take its partitions over. At the end every
 * partition checkpoint is the log head, every table holds exactly the folded logs' rows
 * (nothing applied twice) and sampled memories verify clean against replay.
 */
const COMMANDS = Number(process.env['SHARING_COMMANDS'] ?? 3_000);
const PARTITIONS = 4;
const ROOT = resolve(__dirname, '../../..');

interface Child {
  process: ChildProcess;
  output: string;
}

describe('work-sharing projector processes', () => {
  let db: TestDatabase;
  let store: PostgresLogStore;
  const children: Child[] = [];

  beforeAll(async () => {
    db = await createTestDatabase();
    await migrate(db.pool, [...logStoreMigrations, ...readModelMigrations]);
    store = new PostgresLogStore(db.pool);
  });

  afterAll(async () => {
    for (const child of children) child.process.kill('SIGKILL');
    await store.close();
    await db.drop();
  });

  const start = (): Child => {
    const child: Child = {
      output: '',
      process: spawn(process.execPath, ['--import', 'tsx', 'services/projector/src/main.ts'], {
        cwd: ROOT,
        env: projectorEnv({ DATABASE_URL: db.url, LOG_LEVEL: 'info', PROJECTOR_PARTITIONS: String(PARTITIONS) }),
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
    };
    child.process.stdout!.on('data', (d: Buffer) => (child.output += d.toString()));
    child.process.stderr!.on('data', (d: Buffer) => (child.output += d.toString()));
    children.push(child);
    return child;
  };
  const stop = async (child: Child, signal: NodeJS.Signals) => {
    const c = child.process;
    if (c.exitCode !== null || c.signalCode !== null) return;
    const exited = new Promise((done) => c.once('exit', done));
    c.kill(signal);
    await exited;
  };
  /** The partitions a process said it owns last (pino JSON lines with `owned`). */
  const ownedBy = (child: Child): number[] => {
    const lines = child.output.split('\n').filter((l) => l.includes('"owned"'));
    return lines.length === 0 ? [] : (JSON.parse(lines[lines.length - 1]!) as { owned: number[] }).owned;
  };
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  const until = async (condition: () => boolean | Promise<boolean>, timeoutMs: number, what: string) => {
    const deadline = Date.now() + timeoutMs;
    while (!(await condition())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}\n${children.map((c) => c.output.slice(-1500)).join('\n---\n')}`);
      await sleep(100);
    }
  };

  it('shares the partitions, survives a SIGKILL, applies every event exactly once', async () => {
    const memories = generateMemories(COMMANDS, 'share');
    const [a, b, c] = [start(), start(), start()];
    // Every process gets work: 4 partitions over 3 members is 2 + 1 + 1.
    await until(() => [a, b, c].every((p) => ownedBy(p!).length > 0), 60_000, 'all three processes to own partitions');
    const { rows: layout } = await db.pool.query<{ projection: string }>('SELECT projection FROM rm_checkpoints ORDER BY projection');
    expect(layout.map((r) => r.projection)).toEqual(layoutCheckpoints('read-models', PARTITIONS));

    const writing = appendMemories(store, memories);
    // Kill the process with the most partitions once it has committed something.
    const victim = [a!, b!, c!].sort((x, y) => ownedBy(y).length - ownedBy(x).length)[0]!;
    await until(
      async () => (await projectedPosition(db.pool, READ_MODELS_PROJECTION)) > 0 || (await store.headPosition()) > 2_000,
      60_000,
      'the projectors to start committing',
    );
    const killedAt = await projectedPosition(db.pool, READ_MODELS_PROJECTION);
    expect(ownedBy(victim).length).toBeGreaterThan(0);
    await stop(victim, 'SIGKILL');
    await writing;

    // The survivors take the victim's partitions over and catch up to the head.
    const survivors = [a!, b!, c!].filter((p) => p !== victim);
    await until(() => survivors.reduce((n, p) => n + ownedBy(p).length, 0) === PARTITIONS, 60_000, 'the survivors to own every partition');
    // (re-read the head each time: the safe head trails transactions still open when it was read)
    await until(
      async () => (await projectedPosition(db.pool, READ_MODELS_PROJECTION)) >= (await store.headPosition()),
      120_000,
      'every partition to reach the head',
    );
    for (const p of survivors) await stop(p, 'SIGTERM');
    const head = await store.headPosition();

    const { rows: checkpoints } = await db.pool.query<{ projection: string; position: number }>(
      'SELECT projection, position::int AS position FROM rm_checkpoints ORDER BY projection',
    );
    expect(killedAt).toBeLessThan(head); // killed mid-way, with work left for the survivors
    expect(checkpoints).toEqual(layoutCheckpoints('read-models', PARTITIONS).map((projection) => ({ projection, position: head })));
    expect(await rowCounts(db.pool)).toEqual(expectedRowCounts(memories));

    const projection = new PostgresMemoryQueries(db.pool);
    const replay = new ReplayMemoryQueries(new MemoryLogCache(store));
    const sample = memories.filter((_, i) => i % Math.max(1, Math.floor(memories.length / 30)) === 0);
    for (const { memoryId } of sample) {
      const report = await verifyMemory({ projection, replay, store }, memoryId, '9999-12-31T23:59:59.999Z');
      if (!report.consistent) throw new Error(`${memoryId}: ${JSON.stringify(report.differences.slice(0, 3))}`);
    }
  }, 300_000);
});
