import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Read-model schema. Every table is keyed by memory_id first (no query crosses
 * memories). Instants are timestamptz; record intervals are half-open [from, to),
 * NULL meaning open. Versioned tables (facts, events, episodes) carry a GiST
 * exclusion constraint so "one fact's record intervals never overlap, at most one
 * is open" holds in the database, not just in the projector. Empty intervals
 * [r, r) are legal: two commands at the same recordedAt can open and close a version.
 */
const versionedConstraints = (table: string, id: string) => [
  `ALTER TABLE ${table} ADD CONSTRAINT ${table}_recorded_interval CHECK (recorded_to IS NULL OR recorded_from <= recorded_to)`,
  `ALTER TABLE ${table} ADD CONSTRAINT ${table}_no_overlap
     EXCLUDE USING gist (memory_id WITH =, ${id} WITH =, tstzrange(recorded_from, recorded_to, '[)') WITH &&)`,
  `CREATE UNIQUE INDEX ${table}_open ON ${table} (memory_id, ${id}) WHERE recorded_to IS NULL`,
];

/** Ids compare bytewise (answers are sorted in JS anyway): "C" keeps btree/GiST comparisons at memcmp speed. */
const ID = 'text COLLATE "C"';

export const readModelStatements: string[] = [
  'CREATE EXTENSION IF NOT EXISTS btree_gist',

  `CREATE TABLE rm_checkpoints (
     projection ${ID} PRIMARY KEY,
     position bigint NOT NULL
   )`,

  `CREATE TABLE rm_fact_versions (
     memory_id ${ID} NOT NULL,
     fact_id ${ID} NOT NULL,
     version_no integer NOT NULL,
     src ${ID} NOT NULL,
     rel ${ID} NOT NULL,
     dst_entity ${ID} NULL,
     dst_literal jsonb NULL,
     -- String(literal) as JavaScript prints it: what a dst filter compares (jsonb prints numbers differently).
     dst_text text NULL,
     valid_from timestamptz NOT NULL,
     valid_to timestamptz NULL,
     recorded_from timestamptz NOT NULL,
     recorded_to timestamptz NULL,
     confidence double precision NULL,
     evidence text[] NOT NULL,
     source text NULL,
     PRIMARY KEY (memory_id, fact_id, version_no),
     CONSTRAINT rm_fact_versions_valid_interval CHECK (valid_to IS NULL OR valid_from < valid_to),
     CONSTRAINT rm_fact_versions_dst CHECK ((dst_entity IS NULL) <> (dst_literal IS NULL))
   )`,
  ...versionedConstraints('rm_fact_versions', 'fact_id'),
  `CREATE INDEX rm_fact_versions_cut ON rm_fact_versions
     USING gist (memory_id, tstzrange(recorded_from, recorded_to, '[)'), tstzrange(valid_from, valid_to, '[)'))`,
  'CREATE INDEX rm_fact_versions_src ON rm_fact_versions (memory_id, src, rel)',
  'CREATE INDEX rm_fact_versions_rel ON rm_fact_versions (memory_id, rel)',
  // changes(from, to): versions opened or closed in a record-time window.
  'CREATE INDEX rm_fact_versions_opened ON rm_fact_versions (memory_id, recorded_from)',
  'CREATE INDEX rm_fact_versions_closed ON rm_fact_versions (memory_id, recorded_to) WHERE recorded_to IS NOT NULL',

  `CREATE TABLE rm_entities (
     memory_id ${ID} NOT NULL,
     entity_id ${ID} NOT NULL,
     name text NOT NULL,
     recorded_from timestamptz NOT NULL,
     -- log position of the registration: aliases logged before it do not belong to it (as in evolve)
     position bigint NOT NULL,
     PRIMARY KEY (memory_id, entity_id)
   )`,
  // Aliases and types in log order (position, then index in the event): entity answers list them in that order.
  `CREATE TABLE rm_entity_labels (
     memory_id ${ID} NOT NULL,
     entity_id ${ID} NOT NULL,
     kind text NOT NULL CHECK (kind IN ('alias', 'type')),
     value text NOT NULL,
     recorded_from timestamptz NOT NULL,
     position bigint NOT NULL,
     idx integer NOT NULL,
     PRIMARY KEY (memory_id, entity_id, position, kind, idx)
   )`,
  // seq = log position: merges are replayed in log order to rebuild the merge forest at a record time.
  `CREATE TABLE rm_entity_merges (
     memory_id ${ID} NOT NULL,
     seq bigint NOT NULL,
     src_id ${ID} NOT NULL,
     dst_id ${ID} NOT NULL,
     src_root ${ID} NOT NULL,
     dst_root ${ID} NOT NULL,
     recorded_at timestamptz NOT NULL,
     PRIMARY KEY (memory_id, seq)
   )`,
  'CREATE INDEX rm_entity_merges_recorded ON rm_entity_merges (memory_id, recorded_at)',

  `CREATE TABLE rm_relations (
     memory_id ${ID} NOT NULL,
     rel ${ID} NOT NULL,
     cardinality text NOT NULL CHECK (cardinality IN ('one', 'many')),
     recorded_from timestamptz NOT NULL,
     PRIMARY KEY (memory_id, rel)
   )`,

  `CREATE TABLE rm_event_versions (
     memory_id ${ID} NOT NULL,
     event_id ${ID} NOT NULL,
     version_no integer NOT NULL,
     summary text NOT NULL,
     participants jsonb NOT NULL,
     includes_facts text[] NOT NULL,
     span_from timestamptz NOT NULL,
     span_to timestamptz NULL,
     recorded_from timestamptz NOT NULL,
     recorded_to timestamptz NULL,
     PRIMARY KEY (memory_id, event_id, version_no)
   )`,
  ...versionedConstraints('rm_event_versions', 'event_id'),
  `CREATE INDEX rm_event_versions_cut ON rm_event_versions USING gist (memory_id, tstzrange(recorded_from, recorded_to, '[)'))`,

  `CREATE TABLE rm_event_links (
     memory_id ${ID} NOT NULL,
     kind text NOT NULL,
     from_event ${ID} NOT NULL,
     to_event ${ID} NOT NULL,
     qualifier text NULL,
     recorded_from timestamptz NOT NULL,
     PRIMARY KEY (memory_id, kind, from_event, to_event)
   )`,

  `CREATE TABLE rm_episode_versions (
     memory_id ${ID} NOT NULL,
     episode_id ${ID} NOT NULL,
     version_no integer NOT NULL,
     title text NOT NULL,
     window_from timestamptz NOT NULL,
     window_to timestamptz NULL,
     events text[] NOT NULL,
     recorded_from timestamptz NOT NULL,
     recorded_to timestamptz NULL,
     PRIMARY KEY (memory_id, episode_id, version_no)
   )`,
  ...versionedConstraints('rm_episode_versions', 'episode_id'),
  `CREATE INDEX rm_episode_versions_cut ON rm_episode_versions USING gist (memory_id, tstzrange(recorded_from, recorded_to, '[)'))`,

  `CREATE TABLE rm_mentions (
     memory_id ${ID} NOT NULL,
     mention_id ${ID} NOT NULL,
     doc_id ${ID} NOT NULL,
     text text NOT NULL,
     speaker text NULL,
     occurred_at timestamptz NULL,
     recorded_from timestamptz NOT NULL,
     PRIMARY KEY (memory_id, mention_id)
   )`,
  'CREATE INDEX rm_mentions_recorded ON rm_mentions (memory_id, recorded_from)',
];

export const READ_MODEL_TABLES = [
  'rm_mentions',
  'rm_episode_versions',
  'rm_event_links',
  'rm_event_versions',
  'rm_relations',
  'rm_entity_merges',
  'rm_entity_labels',
  'rm_entities',
  'rm_fact_versions',
  'rm_checkpoints',
];

export class ReadModelsSchema1763856000000 implements MigrationInterface {
  readonly name = 'ReadModelsSchema1763856000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    for (const sql of readModelStatements) await queryRunner.query(sql);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    // btree_gist stays: other schemas may use it.
    for (const table of READ_MODEL_TABLES) await queryRunner.query(`DROP TABLE IF EXISTS ${table}`);
  }
}

export const readModelMigrations: MigrationInterface[] = [new ReadModelsSchema1763856000000()];
