import { type TestDatabase, createTestDatabase } from '@memotrace/postgres';
import { copyRows } from './bulk-load';

/** COPY's text format through the chunked writer: escapes, multi-byte text, lines longer than a chunk. */
describe('copyRows', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
    await db.pool.query('CREATE TABLE copied (n integer PRIMARY KEY, t text, tags text[], doc jsonb)');
  });
  afterAll(() => db.drop());

  it('writes every value back exactly, across chunk boundaries', async () => {
    const texts = ['plain', 'tab\there, newline\nthere, CR\r, backslash \\ and \\N', 'Renée 😀 ～ ß', '', 'x'.repeat(2_500_000), 'é'.repeat(700_000)];
    const rows = Array.from(
      { length: 30_000 },
      (_, n) =>
        [n, n % 7 === 6 ? null : texts[n % texts.length]!.slice(0, n < 6 ? undefined : 200), [`a"b${n}`, 'c\\d', 'é'], { n, s: 'q"\\\n' }] as const,
    );
    const client = await db.pool.connect();
    try {
      expect(
        await copyRows(
          client,
          'copied',
          [
            ['n', 'number'],
            ['t', 'text'],
            ['tags', 'text[]'],
            ['doc', 'json'],
          ],
          rows,
        ),
      ).toBe(rows.length);
    } finally {
      client.release();
    }
    const { rows: back } = await db.pool.query('SELECT n, t, tags, doc FROM copied ORDER BY n');
    expect(back.map((r) => [r.n, r.t, r.tags, r.doc])).toEqual(rows.map((r) => [...r]));
  });
});
