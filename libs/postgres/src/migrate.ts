import type { TlsOptions } from 'node:tls';
import pg from 'pg';
import { DataSource, type DataSourceOptions, type MigrationInterface } from 'typeorm';

/** A TypeORM migration instance or a class with a no-arg constructor. */
export type MigrationInput = MigrationInterface | (new () => MigrationInterface);

export const MIGRATIONS_TABLE = 'memotrace_migrations';
// Two-int advisory lock key ('mtmg', 1): its own key space, apart from bigint keys.
const LOCK_CLASS = 0x6d746d67;
const LOCK_ID = 1;

/**
 * Runs pending migrations, each in its own transaction. A session advisory lock
 * (per database) serialises concurrent callers: the second one waits and then
 * finds nothing left to run. Returns the names of the migrations it executed.
 */
export async function migrate(target: string | pg.Pool, migrations: readonly MigrationInput[]): Promise<string[]> {
  const lock = await lockConnection(target);
  const lockClient = lock.client;
  try {
    await lockClient.query('SELECT pg_advisory_lock($1, $2)', [LOCK_CLASS, LOCK_ID]);
    try {
      const dataSource = new DataSource({
        ...connectionOptions(target),
        migrations: migrations.map(asMigrationClass),
        migrationsTableName: MIGRATIONS_TABLE,
        migrationsRun: false,
        synchronize: false,
        logging: false,
      });
      await dataSource.initialize();
      try {
        const executed = await dataSource.runMigrations({ transaction: 'each' });
        return executed.map((migration) => migration.name);
      } finally {
        await dataSource.destroy();
      }
    } finally {
      await lockClient.query('SELECT pg_advisory_unlock($1, $2)', [LOCK_CLASS, LOCK_ID]);
    }
  } finally {
    await lock.close();
  }
}

async function lockConnection(target: string | pg.Pool): Promise<{ client: pg.ClientBase; close(): Promise<void> }> {
  if (typeof target !== 'string') {
    const client = await target.connect();
    return { client, close: async () => client.release() };
  }
  const client = new pg.Client({ connectionString: target });
  await client.connect();
  return { client, close: () => client.end() };
}

/** TypeORM instantiates migration classes itself; wrap instances so it gets them back unchanged. */
function asMigrationClass(migration: MigrationInput): new () => MigrationInterface {
  if (typeof migration === 'function') return migration;
  return class {
    constructor() {
      return migration;
    }
  } as new () => MigrationInterface;
}

function connectionOptions(target: string | pg.Pool): DataSourceOptions {
  if (typeof target === 'string') return { type: 'postgres', url: target };
  const options = target.options;
  if (options.connectionString) return { type: 'postgres', url: options.connectionString, ssl: tls(options.ssl) };
  return {
    type: 'postgres',
    host: options.host,
    port: options.port,
    username: options.user,
    // Read explicitly: pg-pool stores the password as a non-enumerable property.
    password: typeof options.password === 'string' ? options.password : undefined,
    database: options.database,
    ssl: tls(options.ssl),
  };
}

// pg and TypeORM type their TLS options differently; both end up in node:tls.
const tls = (ssl: pg.PoolConfig['ssl']): boolean | TlsOptions | undefined => ssl as boolean | TlsOptions | undefined;
