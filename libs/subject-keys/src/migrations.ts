import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The subject key table (crypto-shredding) and the database-held master key.
 * A key row holds its key wrapped under the master key; a destroyed key, or a tombstone that
 * keeps a generation from ever being created again, has wrapped NULL and destroyed_at set.
 */
export class SubjectKeysSchema1796100000000 implements MigrationInterface {
  readonly name = 'SubjectKeysSchema1796100000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE mt_subject_keys (
        memory_id text NOT NULL,
        subject_kind text NOT NULL,
        subject_id text NOT NULL,
        generation integer NOT NULL CHECK (generation >= 0),
        wrapped bytea NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        destroyed_at timestamptz NULL,
        PRIMARY KEY (memory_id, subject_kind, subject_id, generation),
        CONSTRAINT mt_subject_keys_destroyed_check CHECK ((wrapped IS NULL) = (destroyed_at IS NOT NULL))
      )`);
    // One row at most: the master key of a service on an external database with none configured.
    await queryRunner.query(`
      CREATE TABLE mt_master_key (
        id smallint PRIMARY KEY CHECK (id = 1),
        key bytea NOT NULL CHECK (length(key) = 32)
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE mt_master_key');
    await queryRunner.query('DROP TABLE mt_subject_keys');
  }
}

/**
 * The tombstones (destroyed keys) by subject: creating and reading keys checks each ref for a
 * tombstone at a later generation, which without this index reads every key row of the memory.
 */
export class SubjectKeyTombstones1796400000000 implements MigrationInterface {
  readonly name = 'SubjectKeyTombstones1796400000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE INDEX mt_subject_keys_tombstones ON mt_subject_keys (memory_id, subject_kind, subject_id, generation)
      WHERE wrapped IS NULL`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX mt_subject_keys_tombstones');
  }
}

export const subjectKeyMigrations: MigrationInterface[] = [new SubjectKeysSchema1796100000000(), new SubjectKeyTombstones1796400000000()];
