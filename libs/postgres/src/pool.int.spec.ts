import { inTransaction } from './pool';
import { createTestDatabase, type TestDatabase } from './testing/test-database';

jest.setTimeout(60_000);

describe('createPool against the server', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(() => db.drop());

  it('reads back text[] values as written, quoted by the server or not', async () => {
    const arrays = [
      [],
      ['fact:m:f1'],
      ['fact:m:f1', 'fact:m:f2'],
      [null, 'NULL', 'null', ''],
      ['a,b', 'x"y', 'back\\slash', '{brace}', ' spaced ', 'é ünïcode'],
    ];
    const { rows } = await db.pool.query<{ value: (string | null)[] }>(
      'SELECT value FROM unnest($1::text[]) WITH ORDINALITY AS u(json, n), ' +
        'LATERAL (SELECT ARRAY(SELECT jsonb_array_elements_text(json::jsonb)) AS value) v ORDER BY n',
      [arrays.map((array) => JSON.stringify(array))],
    );
    expect(rows.map((row) => row.value)).toEqual(arrays);
  });

  it('fails the next query of a checked-out connection lost between two queries, not the process, and drops it', async () => {
    const client = await db.pool.connect();
    const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    await db.pool.query('SELECT pg_terminate_backend($1)', [rows[0]!.pid]);
    // The server's notice of the termination arrives while no query runs on this connection.
    await new Promise((resolve) => setTimeout(resolve, 200));
    await expect(client.query('SELECT 1')).rejects.toThrow(/terminat|not queryable|Connection terminated/);
    client.release();
    const again = await db.pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    expect(again.rows[0]!.pid).not.toBe(rows[0]!.pid);
  });
});

describe('inTransaction', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(() => db.drop());

  it('fails the transaction, not the process, when its connection is lost between two queries', async () => {
    const outcome = inTransaction(db.pool, async (client) => {
      const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      await db.pool.query('SELECT pg_terminate_backend($1)', [rows[0]!.pid]);
      // The server's notice of the termination arrives while no query runs on this connection.
      await new Promise((resolve) => setTimeout(resolve, 200));
      await client.query('SELECT 1');
    });
    await expect(outcome).rejects.toThrow(/terminat|not queryable|Connection terminated/);
    // The lost connection was not handed back to the pool: the next transaction works.
    await expect(inTransaction(db.pool, async (client) => (await client.query('SELECT 1 AS one')).rows[0])).resolves.toEqual({ one: 1 });
  });
});
