import type { MigrationInterface, QueryRunner } from 'typeorm';
import { migrate, MIGRATIONS_TABLE } from './migrate';
import { createTestDatabase, type TestDatabase } from './testing/test-database';

class CreateWidgets1700000000001 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('CREATE TABLE widgets (id int PRIMARY KEY)');
    await queryRunner.query('SELECT pg_sleep(0.2)'); // widen the race window
  }
  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE widgets');
  }
}

class AddWidgetName1700000000002 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE widgets ADD COLUMN name text');
  }
  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE widgets DROP COLUMN name');
  }
}

// testTimeout in jest.config.js is not applied per project, so set it here.
jest.setTimeout(60_000);

describe('migrate', () => {
  let db: TestDatabase;
  beforeEach(async () => {
    db = await createTestDatabase();
  });
  afterEach(() => db.drop());

  it('runs pending migrations once, also when called concurrently', async () => {
    const migrations = [new AddWidgetName1700000000002(), CreateWidgets1700000000001];

    const runs = await Promise.all([migrate(db.url, migrations), migrate(db.pool, migrations), migrate(db.url, migrations)]);

    expect(runs.flat().sort()).toEqual(['AddWidgetName1700000000002', 'CreateWidgets1700000000001']);
    const { rows } = await db.pool.query<{ name: string }>(`SELECT name FROM ${MIGRATIONS_TABLE} ORDER BY id`);
    expect(rows.map((row) => row.name)).toEqual(['CreateWidgets1700000000001', 'AddWidgetName1700000000002']);
    await db.pool.query("INSERT INTO widgets (id, name) VALUES (1, 'one')");
    expect(await migrate(db.pool, migrations)).toEqual([]);
  });

  it('rolls back a failing migration and reports it', async () => {
    class Broken1700000000003 implements MigrationInterface {
      async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query('CREATE TABLE half_done (id int)');
        await queryRunner.query('SELECT * FROM no_such_table');
      }
      async down(): Promise<void> {}
    }

    await expect(migrate(db.url, [Broken1700000000003])).rejects.toThrow(/no_such_table/);
    const { rows } = await db.pool.query("SELECT to_regclass('half_done') AS t");
    expect(rows[0]).toEqual({ t: null });
  });
});
