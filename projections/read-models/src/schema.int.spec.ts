import { type TestDatabase, createTestDatabase, migrate } from '@memotrace/postgres';
import { DatabaseError } from 'pg';
import { readModelMigrations } from './schema';

/** The version invariants are database guarantees, whoever writes. */
let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase();
  expect(await migrate(db.pool, readModelMigrations)).toEqual(['ReadModelsSchema1763856000000']);
});

afterAll(async () => {
  await db?.drop();
});

const T = (h: number) => new Date(Date.UTC(2024, 4, 6, h)).toISOString();

async function insertFact(factId: string, versionNo: number, recordedFrom: string, recordedTo: string | null, valid: [string, string | null] = [T(0), null]) {
  await db.pool.query(
    `INSERT INTO rm_fact_versions (memory_id, fact_id, version_no, src, rel, dst_entity, valid_from, valid_to, recorded_from, recorded_to, evidence)
     VALUES ('m', $1, $2, 'a', 'knows', 'b', $3, $4, $5, $6, '{}')`,
    [factId, versionNo, valid[0], valid[1], recordedFrom, recordedTo],
  );
}

async function pgError(promise: Promise<unknown>): Promise<{ code?: string; constraint?: string }> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DatabaseError);
  return error as DatabaseError;
}

describe('read-model schema', () => {
  it('migrating again runs nothing', async () => {
    expect(await migrate(db.pool, readModelMigrations)).toEqual([]);
  });

  it('rejects a fact version whose record interval overlaps another of the same fact (exclusion constraint)', async () => {
    await insertFact('f1', 1, T(1), T(3));
    const error = await pgError(insertFact('f1', 2, T(2), T(4)));
    expect(error).toMatchObject({ code: '23P01', constraint: 'rm_fact_versions_no_overlap' });
    // Adjacent half-open intervals do not overlap; another fact may overlap freely.
    await insertFact('f1', 2, T(3), T(4));
    await insertFact('f2', 1, T(1), T(3));
  });

  it('allows at most one open version per fact, and empty [r, r) versions next to it', async () => {
    await insertFact('f3', 1, T(1), null);
    const error = await pgError(insertFact('f3', 2, T(2), null));
    expect(['23P01', '23505']).toContain(error.code);
    await insertFact('f3', 2, T(1), T(1));
    await insertFact('f3', 3, T(5), T(5));
    const { rows } = await db.pool.query(`SELECT count(*)::int AS n FROM rm_fact_versions WHERE fact_id = 'f3'`);
    expect(rows[0].n).toBe(3);
  });

  it('rejects validity intervals with validTo <= validFrom, and record intervals running backwards', async () => {
    expect(await pgError(insertFact('f4', 1, T(1), null, [T(2), T(2)]))).toMatchObject({ code: '23514', constraint: 'rm_fact_versions_valid_interval' });
    expect(await pgError(insertFact('f4', 1, T(2), T(1)))).toMatchObject({ code: '23514', constraint: 'rm_fact_versions_recorded_interval' });
  });

  it('guards event and episode versions the same way', async () => {
    const insertEvent = (no: number, from: string, to: string | null) =>
      db.pool.query(
        `INSERT INTO rm_event_versions (memory_id, event_id, version_no, summary, participants, includes_facts, span_from, recorded_from, recorded_to)
         VALUES ('m', 'ev', $1, 's', '[]', '{}', $2, $2, $3)`,
        [no, from, to],
      );
    await insertEvent(1, T(1), T(3));
    expect(await pgError(insertEvent(2, T(2), null))).toMatchObject({ code: '23P01', constraint: 'rm_event_versions_no_overlap' });
    const insertEpisode = (no: number, from: string, to: string | null) =>
      db.pool.query(
        `INSERT INTO rm_episode_versions (memory_id, episode_id, version_no, title, window_from, events, recorded_from, recorded_to)
         VALUES ('m', 'ep', $1, 't', $2, '{}', $2, $3)`,
        [no, from, to],
      );
    await insertEpisode(1, T(1), null);
    expect(await pgError(insertEpisode(2, T(2), null))).toMatchObject({ code: expect.stringMatching(/^(23P01|23505)$/) });
  });
});
