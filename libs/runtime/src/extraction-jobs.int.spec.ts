import { createPool, migrate } from '@memotrace/postgres';
import { type TestDatabase, createTestDatabase } from '@memotrace/postgres/testing';
import type { Pool } from 'pg';
import { ExtractionJobs, extractionJobMigrations } from './extraction-jobs';

/**
 * The job table's leases: a claimed job is out of other processors' reach until its lease ends, a
 * renewal extends only a lease still as its holder left it, and a lease that ended hands the job on.
 */
describe('extraction job leases', () => {
  let db: TestDatabase;
  let pool: Pool;
  let jobs: ExtractionJobs;
  beforeAll(async () => {
    db = await createTestDatabase();
    await migrate(db.pool, extractionJobMigrations);
    pool = createPool(db.url, { max: 2 });
    jobs = new ExtractionJobs(pool);
  });
  afterAll(async () => {
    await pool?.end();
    await db?.drop();
  });
  beforeEach(async () => {
    await pool.query('DELETE FROM mt_extraction_jobs');
  });

  const enqueue = (sessionId: string) =>
    jobs.enqueue({ memoryId: 'm', sessionId, mentionIds: [`${sessionId}:1`], turnCommandIds: [], extractor: 'x@1' });
  const dueIn = async (id: number) =>
    Number(
      (
        await pool.query<{ ms: string }>('SELECT extract(epoch FROM next_attempt_at - now()) * 1000 AS ms FROM mt_extraction_jobs WHERE id = $1', [
          id,
        ])
      ).rows[0]!.ms,
    );
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  it('keeps a claimed job from others while its lease is renewed, and hands it on once the lease ends', async () => {
    const [held, lapsed] = [await enqueue('a'), await enqueue('b')];
    // Leases of a millisecond: ended by the time anything else happens.
    const claimed = await jobs.claim(8, 1);
    expect(claimed.map((j) => [j.id, j.leaseUntil instanceof Date])).toEqual([
      [held, true],
      [lapsed, true],
    ]);
    await sleep(20);
    const renewed = await jobs.renew([claimed[0]!], 60_000);
    expect([...renewed.keys()]).toEqual([held]);
    expect(await dueIn(held)).toBeGreaterThan(50_000);
    // The renewed job stays held; the other one, not renewed, is taken by the next claim.
    const taken = await jobs.claim(8, 60_000);
    expect(taken.map((j) => j.id)).toEqual([lapsed]);
    // Its first holder's renewal names a lease that is no longer the job's: the new holder keeps it.
    expect(await jobs.renew([claimed[1]!], 1)).toEqual(new Map());
    expect(await dueIn(lapsed)).toBeGreaterThan(50_000);
  });

  it("never renews over a job's outcome: done, failed and due for its retry, or handed back", async () => {
    const [a, b, c] = [await enqueue('a'), await enqueue('b'), await enqueue('c')];
    const claimed = await jobs.claim(8, 60_000);
    await jobs.complete(a, 'x@1');
    await jobs.fail(b, 'x@1', 'model unavailable', 0);
    await jobs.release(c, 0);
    expect(await jobs.renew(claimed, 60_000)).toEqual(new Map());
    expect((await jobs.claim(8, 60_000)).map((j) => j.id).sort()).toEqual([b, c].sort());
  });
});
