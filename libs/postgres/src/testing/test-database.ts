import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { createPool } from '../pool';

export interface TestDatabase {
  url: string;
  pool: pg.Pool;
  /** Ends the pool and drops the database (WITH (FORCE)). Idempotent. */
  drop(): Promise<void>;
}

/** A fresh, uniquely named database on the server of `DATABASE_URL`. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const serverUrl = process.env.DATABASE_URL;
  if (!serverUrl) {
    throw new Error(
      'DATABASE_URL is not set: integration tests need a PostgreSQL server, e.g. ' +
        'DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npx jest ..., ' +
        'or npx tsx infra/scripts/with-embedded-pg.ts -- npx jest ...',
    );
  }
  const name = `mt_test_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  await adminQuery(serverUrl, (client) => `CREATE DATABASE ${client.escapeIdentifier(name)}`);

  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const pool = createPool(url.toString());
  let dropped: Promise<void> | undefined;
  const drop = () =>
    (dropped ??= (async () => {
      if (!pool.ending) await pool.end(); // the test may have ended it already
      await adminQuery(serverUrl, (client) => `DROP DATABASE IF EXISTS ${client.escapeIdentifier(name)} WITH (FORCE)`);
    })());
  return { url: url.toString(), pool, drop };
}

async function adminQuery(serverUrl: string, sql: (client: pg.Client) => string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(sql(client));
  } finally {
    await client.end();
  }
}
