import { PostgresLogStore, logStoreMigrations } from '@memotrace/log-store';
import { migrate } from '@memotrace/postgres';
import { type TestDatabase, createTestDatabase } from '@memotrace/postgres/testing';
import { readModelMigrations, readModelsProjection } from '@memotrace/read-models';
import { type Projector, startProjector } from '@memotrace/projection';

export interface ProjectedLog {
  db: TestDatabase;
  store: PostgresLogStore;
  projector: Projector;
  stop(): Promise<void>;
}

/** A fresh database with the log and the read models, and a projector running over it. */
export async function startProjectedLog(): Promise<ProjectedLog> {
  const db = await createTestDatabase();
  await migrate(db.pool, [...logStoreMigrations, ...readModelMigrations]);
  const store = new PostgresLogStore(db.pool);
  const projector = await startProjector({ store, pool: db.pool, projections: [readModelsProjection] });
  return {
    db,
    store,
    projector,
    async stop() {
      await projector.stop();
      await store.close();
      await db.drop();
    },
  };
}
