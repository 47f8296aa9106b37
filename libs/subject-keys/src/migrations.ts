import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The subject key table (crypto-shredding) and the database-held master key.
 * A key row of the first stored format holds its key wrapped under the master key; a destroyed key,
 * or a tombstone (a subject's erasure through this generation is done), has wrapped NULL and
 * destroyed_at set.
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

/**
 * Key sets: the keys of one appended batch's sealed boxes, one row per batch (see NewKeySet). A
 * box's key is made from its seed under the master key; destroying it zeroes the seed. `subjects`
 * and `guards` list, pairwise, a subject generation and a box whose key its erasure destroys.
 * Seeds are random, so PostgreSQL is told not to try compressing them.
 */
export class ContentKeySets1796800000000 implements MigrationInterface {
  readonly name = 'ContentKeySets1796800000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE mt_content_keys (
        memory_id text NOT NULL,
        key_set bigint NOT NULL,
        seeds bytea NOT NULL CHECK (length(seeds) % 32 = 0),
        subjects text[] NOT NULL,
        guards integer[] NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (memory_id, key_set),
        CONSTRAINT mt_content_keys_pairs_check CHECK (cardinality(subjects) = cardinality(guards))
      )`);
    await queryRunner.query('ALTER TABLE mt_content_keys ALTER COLUMN seeds SET STORAGE EXTERNAL');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE mt_content_keys');
  }
}

export const subjectKeyMigrations: MigrationInterface[] = [
  new SubjectKeysSchema1796100000000(),
  new SubjectKeyTombstones1796400000000(),
  new ContentKeySets1796800000000(),
];
