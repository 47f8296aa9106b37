import { type LogStore, PostgresLogStore, logStoreMigrations } from '@memotrace/log-store';
import { OpeningLogStore } from '@memotrace/memory-log';
import { CachingKeyStore, PostgresSubjectKeyStore, databaseMasterKey, masterKeyFrom, subjectKeyMigrations } from '@memotrace/subject-keys';
import { createPool, migrate, startEmbeddedPostgres, takeOverEmbeddedShutdown } from '@memotrace/postgres';
import { readModelMigrations } from '@memotrace/read-models';
import { searchIndexMigrations } from '@memotrace/search-index';
import type { Pool } from 'pg';
import type { RuntimeConfig } from './config';
import { extractionJobMigrations } from './extraction-jobs';

export interface Database {
  url: string;
  pool: Pool;
  /** The replica pool when READ_DATABASE_URL is set, else `pool`. */
  readPool: Pool;
  /** The log as its readers see it: sealed content opened, or emptied where its keys are destroyed. */
  store: LogStore;
  /** The log as stored, content sealed: what is copied out of the service (the Kafka relay). */
  sealedStore: PostgresLogStore;
  /** Per-subject content keys (crypto-shredding), wrapped by the master key. */
  keyStore: CachingKeyStore;
  masterKey: Buffer;
  embedded: boolean;
  close(): Promise<void>;
}

/** The configured PostgreSQL, or an embedded one in the data dir; migrated. */
export async function openDatabase(config: RuntimeConfig, log: (message: string) => void): Promise<Database> {
  // The process shuts down itself (onShutdown), embedded server last.
  if (config.databaseUrl === undefined) await takeOverEmbeddedShutdown();
  // A server that dies is started again; one that cannot be is the end of this process: exiting non-zero lets a
  // supervisor (systemd, Kubernetes, a restart policy) start the service afresh, where staying up would serve nothing.
  const onLost = () => process.exit(1);
  const embedded = config.databaseUrl === undefined ? await startEmbeddedPostgres({ dataDir: `${config.dataDir}/pg`, log, onLost }) : undefined;
  const url = config.databaseUrl ?? embedded!.url;
  log(embedded ? `embedded PostgreSQL running, data in ${config.dataDir}/pg` : 'using PostgreSQL from DATABASE_URL');
  const pool = createPool(url);
  const readPool = config.readDatabaseUrl ? createPool(config.readDatabaseUrl) : pool;
  await migrate(pool, [...logStoreMigrations, ...readModelMigrations, ...searchIndexMigrations, ...subjectKeyMigrations, ...extractionJobMigrations]);
  const sealedStore = new PostgresLogStore(pool);
  // The embedded database keeps its master key in the data directory, beside (never inside) the
  // database; a configured database without a configured key shares one through a table.
  const masterKey = masterKeyFrom(process.env, embedded ? config.dataDir : undefined) ?? (await databaseMasterKey(pool));
  const keyStore = new CachingKeyStore(new PostgresSubjectKeyStore(pool, masterKey));
  const store = new OpeningLogStore(sealedStore, keyStore);
  return {
    url,
    pool,
    readPool,
    store,
    sealedStore,
    keyStore,
    masterKey,
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
