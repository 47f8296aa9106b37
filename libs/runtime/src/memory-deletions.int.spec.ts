import { CachingKeyStore } from '@memotrace/subject-keys';
import { InMemorySubjectKeyStore } from '@memotrace/subject-keys/testing';
import { logStoreMigrations } from '@memotrace/log-store';
import { createPool, migrate } from '@memotrace/postgres';
import { type TestDatabase, createTestDatabase } from '@memotrace/postgres/testing';
import Fastify from 'fastify';
import type { Pool } from 'pg';
import { registerDeletionFence, watchMemoryDeletions } from './memory-deletions';

/**
 * The fence: a request naming a memory takes in every deletion committed before it, even one whose
 * notification has not arrived (here: none is ever sent, and the poll is far off).
 */
describe('memory deletions seen by a process', () => {
  let db: TestDatabase;
  let pool: Pool;
  beforeAll(async () => {
    db = await createTestDatabase();
    await migrate(db.pool, logStoreMigrations);
    pool = createPool(db.url, { max: 2 });
  });
  afterAll(async () => {
    await pool?.end();
    await db?.drop();
  });

  it('a request naming a memory runs after the deletions committed before it were taken in', async () => {
    const forgotten: string[] = [];
    const deletions = await watchMemoryDeletions(
      { pool, keyStore: new CachingKeyStore(new InMemorySubjectKeyStore()) },
      {
        forget: (memoryId) => forgotten.push(memoryId),
        onError: (error) => forgotten.push(`error: ${error.message}`),
        pollIntervalMs: 600_000,
      },
    );
    const app = Fastify();
    registerDeletionFence(app, deletions);
    app.get('/v1/memories/:memoryId/facts', async () => ({ forgotten: [...forgotten] }));
    app.get('/healthz', async () => ({ forgotten: [...forgotten] }));
    try {
      // Logged as a deletion commits it, but without its NOTIFY: only the fence can see it in time.
      await db.pool.query(`INSERT INTO mt_stream_deletions (stream_id, position) VALUES ('memory-gone', 7), ('not-a-memory', 8)`);
      expect((await app.inject({ url: '/healthz' })).json()).toEqual({ forgotten: [] }); // names no memory: no read
      expect((await app.inject({ url: '/v1/memories/gone/facts' })).json()).toEqual({ forgotten: ['gone'] });
      // Taken in once.
      expect((await app.inject({ url: '/v1/memories/other/facts' })).json()).toEqual({ forgotten: ['gone'] });
    } finally {
      await app.close();
      await deletions.stop();
    }
  });
});
