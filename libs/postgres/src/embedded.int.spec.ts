import { readFileSync } from 'node:fs';
import { chmod, mkdtemp, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import pg from 'pg';
import { startEmbeddedPostgres } from './embedded';

async function query<T extends pg.QueryResultRow>(url: string, sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql)).rows;
  } finally {
    await client.end();
  }
}

// testTimeout in jest.config.js is not applied per project, so set it here.
jest.setTimeout(60_000);

describe('startEmbeddedPostgres', () => {
  let tempDir: string;

  beforeAll(async () => {
    tempDir = await mkdtemp(path.join(tmpdir(), 'mt-embedded-spec-'));
    await chmod(tempDir, 0o755); // traversable by the postgres user when tests run as root
  });
  afterAll(() => rm(tempDir, { recursive: true, force: true }));

  it('runs PostgreSQL 18 on loopback and keeps data across restarts', async () => {
    const dataDir = path.join(tempDir, 'data');

    const first = await startEmbeddedPostgres({ dataDir });
    try {
      expect(first.url).toMatch(/^postgres:\/\/postgres:[^@]+@127\.0\.0\.1:\d+\/memotrace$/);
      const [row] = await query<{ version: string }>(first.url, 'SELECT version()');
      expect(row?.version).toMatch(/^PostgreSQL 18\./);
      const [settings] = await query<{ listen: string }>(first.url, "SELECT current_setting('listen_addresses') AS listen");
      expect(settings?.listen).toBe('127.0.0.1');
      await query(first.url, "CREATE TABLE kept (v text); INSERT INTO kept VALUES ('still here')");
    } finally {
      await first.stop();
    }
    await first.stop(); // idempotent

    const startedAt = Date.now();
    const second = await startEmbeddedPostgres({ dataDir });
    const restartMs = Date.now() - startedAt;
    try {
      const rows = await query<{ v: string }>(second.url, 'SELECT v FROM kept');
      expect(rows).toEqual([{ v: 'still here' }]);
      expect(restartMs).toBeLessThan(10_000);
    } finally {
      await second.stop();
    }
    await expect(query(second.url, 'SELECT 1')).rejects.toThrow();
  });

  /** The postmaster's pid, from its lock file. */
  const postmasterOf = (dataDir: string) => Number(readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);

  it('starts a server that died again, on the same URL, and says so', async () => {
    const dataDir = path.join(tempDir, 'killed');
    const notes: string[] = [];
    const lost: Error[] = [];
    const running = await startEmbeddedPostgres({ dataDir, log: (note) => notes.push(note), onLost: (error) => lost.push(error) });
    try {
      await query(running.url, "CREATE TABLE kept (v text); INSERT INTO kept VALUES ('before the kill')");
      const killed = postmasterOf(dataDir);
      process.kill(killed, 'SIGKILL');
      const deadline = Date.now() + 30_000;
      let rows: { v: string }[] | undefined;
      while (rows === undefined) {
        rows = await query<{ v: string }>(running.url, 'SELECT v FROM kept').catch((error: Error) => {
          if (Date.now() > deadline) throw error;
          return new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 200));
        });
      }
      expect(rows).toEqual([{ v: 'before the kill' }]);
      expect(postmasterOf(dataDir)).not.toBe(killed);
      expect(notes).toEqual(
        expect.arrayContaining([expect.stringMatching(/exited \(SIGKILL\) without being stopped/), expect.stringMatching(/running again/)]),
      );
      expect(lost).toEqual([]);
    } finally {
      await running.stop();
    }
  });

  it('gives a server up as lost when it cannot start again, and a stop still returns', async () => {
    const dataDir = path.join(tempDir, 'gone');
    const lost: Error[] = [];
    const running = await startEmbeddedPostgres({ dataDir, onLost: (error) => lost.push(error) });
    try {
      process.kill(postmasterOf(dataDir), 'SIGKILL');
      await rename(dataDir, `${dataDir}-moved`); // nothing to start from any more
      const deadline = Date.now() + 30_000;
      while (lost.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
      expect(lost.map((e) => e.message)).toEqual([expect.stringMatching(/could not be started again/)]);
    } finally {
      await running.stop();
    }
  });
});
