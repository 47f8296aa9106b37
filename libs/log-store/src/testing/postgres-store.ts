import { migrate } from '@memotrace/postgres';
import { type TestDatabase, createTestDatabase } from '@memotrace/postgres/testing';
import { logStoreMigrations } from '../postgres/migrations';
import { PostgresLogStore } from '../postgres/postgres-log-store';

export interface OpenedPostgresStore {
  db: TestDatabase;
  store: PostgresLogStore;
}

/** A fresh test database with the record store's schema, and a store on it. */
export async function openPostgresStore(): Promise<OpenedPostgresStore> {
  const db = await createTestDatabase();
  await migrate(db.pool, logStoreMigrations);
  return { db, store: new PostgresLogStore(db.pool) };
}

/** The same for one describe block: opened before its tests, closed and dropped after them. */
export function usePostgresStore(): Readonly<OpenedPostgresStore> {
  let opened: OpenedPostgresStore | undefined;
  beforeAll(async () => {
    opened = await openPostgresStore();
  });
  afterAll(async () => {
    await opened?.store.close();
    await opened?.db.drop();
  });
  const get = () => {
    if (!opened) throw new Error('usePostgresStore: the store opens in beforeAll');
    return opened;
  };
  return {
    get db() {
      return get().db;
    },
    get store() {
      return get().store;
    },
  };
}
