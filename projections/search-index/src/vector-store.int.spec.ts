import { type TestDatabase, createTestDatabase, migrate } from '@memotrace/postgres';
import { searchIndexMigrations } from './schema';
import { VectorLookup, storeVectors } from './vector-store';

jest.setTimeout(60_000);

describe('storeVectors against the server', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
    await migrate(db.pool, searchIndexMigrations);
  });
  afterAll(() => db.drop());

  it('stores each float exactly as the same vector written as text would be, and reads it back', async () => {
    const vectors = [
      Float32Array.from([0.1, -0.2, 1 / 3, -0, 1e-40, 3.4e38, -1.5e-7, 0.123456789]),
      Float32Array.from({ length: 512 }, (_, i) => Math.sin(i) / 22.6),
    ];
    await storeVectors(
      db.pool,
      'm',
      vectors.map((vector, i) => ({ hash: `binary-${i}`, vector })),
    );
    // The same values written out as text, the way pg writes an array parameter.
    for (const [i, vector] of vectors.entries())
      await db.pool.query('INSERT INTO si_vectors (model, text_hash, vector) VALUES ($1, $2, $3::real[])', ['m', `text-${i}`, Array.from(vector)]);
    const { rows } = await db.pool.query<{ same: boolean; length: number }>(
      `SELECT b.vector = t.vector AS same, cardinality(b.vector) AS length
         FROM si_vectors b JOIN si_vectors t ON t.model = b.model AND t.text_hash = replace(b.text_hash, 'binary', 'text')
        WHERE b.text_hash LIKE 'binary-%' ORDER BY b.text_hash`,
    );
    expect(rows).toEqual([
      { same: true, length: 8 },
      { same: true, length: 512 },
    ]);
    const read = await new VectorLookup(db.pool).vectors('m', ['binary-0', 'binary-1']);
    expect([...read.get('binary-0')!]).toEqual([...vectors[0]!]);
    expect([...read.get('binary-1')!]).toEqual([...vectors[1]!]);
  });
});
