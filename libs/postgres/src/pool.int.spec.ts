import { createTestDatabase, type TestDatabase } from './testing/test-database';

jest.setTimeout(60_000);

describe('createPool type parsers against the server', () => {
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
});
