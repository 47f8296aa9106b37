import { PostgresLogStore, logStoreMigrations } from '@memotrace/log-store';
import { createPool, migrate, startEmbeddedPostgres, takeOverEmbeddedShutdown } from '@memotrace/postgres';
import { readModelMigrations } from '@memotrace/read-models';
import { searchIndexMigrations } from '@memotrace/search-index';
import type { Pool } from 'pg';
import type { RuntimeConfig } from './config';

export interface Database {
  url: string;
  pool: Pool;
  /** The replica pool when READ_DATABASE_URL is set, else `pool`. */
  readPool: Pool;
  store: PostgresLogStore;
  embedded: boolean;
  close(): Promise<void>;
}

/** The configured PostgreSQL, or an embedded one in the data dir; migrated. */
export async function openDatabase(config: RuntimeConfig, log: (message: string) => void): Promise<Database> {
  // The process shuts down itself (onShutdown), embedded server last.
  if (config.databaseUrl === undefined) await takeOverEmbeddedShutdown();
  const embedded = config.databaseUrl === undefined ? await startEmbeddedPostgres({ dataDir: `${config.dataDir}/pg`, log }) : undefined;
  const url = config.databaseUrl ?? embedded!.url;
  log(embedded ? `embedded PostgreSQL running, data in ${config.dataDir}/pg` : 'using PostgreSQL from DATABASE_URL');
  const pool = createPool(url);
  const readPool = config.readDatabaseUrl ? createPool(config.readDatabaseUrl) : pool;
  await migrate(pool, [...logStoreMigrations, ...readModelMigrations, ...searchIndexMigrations]);
  const store = new PostgresLogStore(pool);
  return {
    url,
    pool,
    readPool,
    store,
    embedded: embedded !== undefined,
    async close() {
      await store.close();
      if (readPool !== pool) await readPool.end();
      await pool.end();
      await embedded?.stop();
    },
  };
}

/** Readiness probe: the database answers. */
export function databaseReadiness(pool: Pool) {
  return { name: 'database', check: async () => void (await pool.query('select 1')) };
}
