import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Search-index schema. Vectors are content-addressed: keyed by (model, text hash),
 * so a text shared by many items (or memories) is embedded once, and a vector can
 * only ever be attached to an item the cut already shows (search looks vectors up
 * by the hash of a visible candidate's text): vectors cannot leak across cuts.
 * `si_items` records which items the projection indexed (rebuild and inspection).
 */
export const SEARCH_INDEX_TABLES = ['si_items', 'si_vectors'] as const;

export class SearchIndexSchema1763900000000 implements MigrationInterface {
  readonly name = 'SearchIndexSchema1763900000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE TABLE si_vectors (
      model text COLLATE "C" NOT NULL,
      text_hash text COLLATE "C" NOT NULL,
      vector real[] NOT NULL,
      PRIMARY KEY (model, text_hash)
    )`);
    await queryRunner.query(`CREATE TABLE si_items (
      memory_id text COLLATE "C" NOT NULL,
      kind text NOT NULL,
      item_id text COLLATE "C" NOT NULL,
      text_hash text COLLATE "C" NOT NULL,
      position bigint NOT NULL,
      PRIMARY KEY (memory_id, kind, item_id, text_hash)
    )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const table of SEARCH_INDEX_TABLES) await queryRunner.query(`DROP TABLE IF EXISTS ${table}`);
  }
}

/** A search corpus reads the vectors of its memory's items as deltas, by log position (`vectorsSince`). */
export class SearchIndexItemsByPosition1764200000000 implements MigrationInterface {
  readonly name = 'SearchIndexItemsByPosition1764200000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('CREATE INDEX IF NOT EXISTS si_items_memory_position ON si_items (memory_id, position)');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX IF EXISTS si_items_memory_position');
  }
}

/** An erasure deletes the vectors whose text no item has any more (SPEC §5.2): found by text hash. */
export class SearchIndexItemsByTextHash1796250000000 implements MigrationInterface {
  readonly name = 'SearchIndexItemsByTextHash1796250000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('CREATE INDEX IF NOT EXISTS si_items_text_hash ON si_items (text_hash)');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX IF EXISTS si_items_text_hash');
  }
}

export const searchIndexMigrations: MigrationInterface[] = [
  new SearchIndexSchema1763900000000(),
  new SearchIndexItemsByPosition1764200000000(),
  new SearchIndexItemsByTextHash1796250000000(),
];
