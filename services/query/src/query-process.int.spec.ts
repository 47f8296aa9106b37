import { type ChildProcess, spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { logStoreMigrations } from '@memotrace/log-store';
import { freePort } from '@memotrace/http-kit';
import { type TestDatabase, createTestDatabase, migrate } from '@memotrace/postgres';
import { readModelMigrations } from '@memotrace/read-models';

/**
 * Issue 4: the query service as its own stateless process (services/query/src/main.ts)
 * reading through READ_DATABASE_URL, beside a command process and two partitioned
 * projector processes. Read-your-writes across processes: a query with the position of
 * a write (`minPosition`) sees that write, whichever partition projects its memory.
 *
 * READ_DATABASE_URL points at the same PostgreSQL as DATABASE_URL here (no replica on
 * this machine): it still proves the query process reads through its own read pool and
 * learns projection progress from the checkpoints alone, never from a projector in-process.
 */
const ROOT = resolve(__dirname, '../../..');
const T0 = '2024-01-01T00:00:00.000Z';
const T1 = '2024-02-01T00:00:00.000Z';

describe('query service process (READ_DATABASE_URL), read-your-writes across processes', () => {
  let db: TestDatabase;
  const children: { process: ChildProcess; output: string }[] = [];
  let commandUrl = '';
  let queryUrl = '';

  const start = (file: string, env: Record<string, string>) => {
    const child = {
      output: '',
      process: spawn(process.execPath, ['--import', 'tsx', file], {
        cwd: ROOT,
        env: { ...process.env, DATABASE_URL: db.url, LOG_LEVEL: 'warn', ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
    };
    child.process.stdout!.on('data', (d: Buffer) => (child.output += d.toString()));
    child.process.stderr!.on('data', (d: Buffer) => (child.output += d.toString()));
    children.push(child);
  };
  const ready = async (url: string) => {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const ok = await fetch(`${url}/readyz`).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) return;
      if (Date.now() > deadline) throw new Error(`${url} not ready:\n${children.map((c) => c.output.slice(-1000)).join('\n---\n')}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };

  beforeAll(async () => {
    db = await createTestDatabase();
    await migrate(db.pool, [...logStoreMigrations, ...readModelMigrations]);
    const [commandPort, queryPort] = [await freePort(), await freePort()];
    commandUrl = `http://127.0.0.1:${commandPort}`;
    queryUrl = `http://127.0.0.1:${queryPort}`;
    start('services/command/src/main.ts', { HOST: '127.0.0.1', PORT: String(commandPort) });
    start('services/query/src/main.ts', { HOST: '127.0.0.1', PORT: String(queryPort), READ_DATABASE_URL: db.url });
    start('services/projector/src/main.ts', { PROJECTOR_PARTITIONS: '2' });
    start('services/projector/src/main.ts', { PROJECTOR_PARTITIONS: '2' });
    await Promise.all([ready(commandUrl), ready(queryUrl)]);
  }, 90_000);

  afterAll(async () => {
    await Promise.all(
      children.map(({ process: c }) => {
        if (c.exitCode !== null || c.signalCode !== null) return undefined;
        const exited = new Promise((done) => c.once('exit', done));
        c.kill('SIGTERM');
        return exited;
      }),
    );
    await db.drop();
  });

  const post = async (memoryId: string, commands: unknown[]) => {
    const response = await fetch(`${commandUrl}/v1/memories/${memoryId}/commands`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ commands }),
    });
    const body = (await response.json()) as { position: number };
    expect(response.status).toBe(200);
    return body.position;
  };
  const facts = async (memoryId: string, params: Record<string, string>) => {
    const response = await fetch(`${queryUrl}/v1/memories/${memoryId}/facts?${new URLSearchParams(params).toString()}`);
    return { status: response.status, body: (await response.json()) as { facts: { factId: string }[] } & { error?: { code: string } } };
  };

  it('a read with a write position sees that write, in every partition', async () => {
    for (let i = 0; i < 12; i++) {
      const memoryId = `ryw-${i}`; // memories spread over both partitions
      const position = await post(memoryId, [
        { op: 'UPSERT_ENTITY', entityId: 'ann', name: 'Ann', recordedAt: T0 },
        { op: 'UPSERT_ENTITY', entityId: 'oslo', name: 'Oslo', recordedAt: T0 },
        { op: 'UPSERT_EDGE', factId: `f${i}`, src: 'ann', rel: 'lives_in', dst: 'oslo', validFrom: T0, recordedAt: T0 },
      ]);
      const read = await facts(memoryId, { minPosition: String(position) });
      expect(read.status).toBe(200);
      expect(read.body.facts.map((f) => f.factId)).toEqual([`f${i}`]);
      // A second write to the same memory, read at once: the archive is visible too.
      const archived = await post(memoryId, [{ op: 'ARCHIVE_EDGE', factId: `f${i}`, recordedAt: T1 }]);
      const after = await facts(memoryId, { minPosition: String(archived) });
      expect(after.status).toBe(200);
      expect(after.body.facts).toEqual([]);
    }
  }, 120_000);

  it('rejects a minPosition beyond the log head with a 400', async () => {
    const read = await facts('ryw-0', { minPosition: '999999999' });
    expect(read.status).toBe(400);
    expect(read.body.error?.code).toBe('INVALID_REQUEST');
  }, 30_000);
});
