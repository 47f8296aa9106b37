import { chmod, mkdtemp, rm } from 'node:fs/promises';
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
});
