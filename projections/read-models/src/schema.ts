import { normaliseName } from '@memotrace/domain';
import type { MigrationInterface, QueryRunner } from 'typeorm';
import { ItemTiersSchema1796700000000 } from './item-tiers';

/**
 * Read-model schema. Every table is keyed by memory_id first (no query crosses
 * memories). Instants are timestamptz; record intervals are half-open [from, to),
 * NULL meaning open. Versioned tables (facts, events, episodes) hold "one record's
 * intervals never overlap, at most one is open" in the database, not just in the
 * projector, as a chain: version n > 1 carries its predecessor's end
 * (`prev_recorded_to`), a foreign key says version n - 1 exists and ended exactly
 * there, and a CHECK says version n starts at or after it. With each interval's
 * start <= end, the versions are ordered and disjoint, only the last can be open.
 * (A chain, not a GiST exclusion constraint: the constraint's probe, with btree_gist
 * text keys, costs more than everything else the projector writes; a foreign key is
 * a btree lookup, and a rebuild validates it in one join.) Empty
 * intervals [r, r) are legal: two commands at the same recordedAt can open and
 * close a version.
 */
const CHAIN_COLUMNS = ['prev_recorded_to timestamptz NULL', 'prev_version_no integer GENERATED ALWAYS AS (version_no - 1) STORED'];
const VERSION_CHAIN_COLUMNS = CHAIN_COLUMNS.join(',\n     ');

const versionedConstraints = (table: string, id: string) => [
  `ALTER TABLE ${table} ADD CONSTRAINT ${table}_recorded_interval CHECK (recorded_to IS NULL OR recorded_from <= recorded_to)`,
  ...versionChain(table, id),
];

const openIndex = (table: string, id: string) =>
  `CREATE UNIQUE INDEX IF NOT EXISTS ${table}_open ON ${table} (memory_id, ${id}) WHERE recorded_to IS NULL`;

const versionChain = (table: string, id: string) => [
  `ALTER TABLE ${table} ADD CONSTRAINT ${table}_follows_previous
     CHECK ((version_no = 1) = (prev_recorded_to IS NULL) AND (prev_recorded_to IS NULL OR prev_recorded_to <= recorded_from))`,
  // The foreign key's target, recorded_to second: it also serves changes() (versions closed in a
  // record-time window) in place of a (memory_id, recorded_to) index.
  `CREATE UNIQUE INDEX ${table}_ends ON ${table} (memory_id, recorded_to, ${id}, version_no)`,
  `ALTER TABLE ${table} ADD CONSTRAINT ${table}_previous_ended FOREIGN KEY (memory_id, ${id}, prev_version_no, prev_recorded_to)
     REFERENCES ${table} (memory_id, ${id}, version_no, recorded_to)`,
];

const RELATIONS_KEY = 'memory_id, rel, recorded_from';

const VERSIONED_TABLES = [
  ['rm_fact_versions', 'fact_id'],
  ['rm_event_versions', 'event_id'],
  ['rm_episode_versions', 'episode_id'],
] as const;

/** Ids compare bytewise (answers are sorted in JS anyway): "C" keeps btree/GiST comparisons at memcmp speed. */
const ID = 'text COLLATE "C"';

/**
 * A primary key as a unique index, then the constraint on it: the same key as an inline one
 * (same names), but the rebuild bulk-loads its tables first and builds these after (one sorted
 * build instead of a million random inserts into the key while copying).
 */
const primaryKey = (table: string, columns: string): string[] => [
  `CREATE UNIQUE INDEX ${table}_pkey ON ${table} (${columns})`,
  `ALTER TABLE ${table} ADD CONSTRAINT ${table}_pkey PRIMARY KEY USING INDEX ${table}_pkey`,
];

/**
 * The facts to an entity or a literal (a cut's `dst` filter, an entity's neighbourhood): one partial
 * index per kind of object, so each version is in one of them and the filter's two terms are two
 * index scans, not a scan of the memory's versions.
 */
const FACT_DST_INDEXES = [
  'CREATE INDEX rm_fact_versions_dst_entity ON rm_fact_versions (memory_id, dst_entity) WHERE dst_entity IS NOT NULL',
  'CREATE INDEX rm_fact_versions_dst_text ON rm_fact_versions (memory_id, dst_text) WHERE dst_text IS NOT NULL',
];

/** A document's mentions (a conversation's turns), read together in document order. */
const MENTIONS_DOC_INDEX = 'CREATE INDEX rm_mentions_doc ON rm_mentions (memory_id, doc_id)';

/**
 * Entity lookups by name, alias or type compare `normaliseName` keys (libs/domain/src/ids.ts),
 * computed by the projector as the domain computes them (the database's case folding is not
 * JavaScript's). "C" ordering serves `LIKE 'prefix%'` from the same btree as equality.
 */
const NAME_KEY = 'text COLLATE "C" NOT NULL';
/** An entity's name key goes with its name when the entity is erased. */
const ERASABLE_NAME_KEY = 'text COLLATE "C" NULL';
/**
 * An entity or a literal, never both; neither once the literal is erased. A record read after its
 * key was destroyed brings a null literal before the erasure that marks the row `erased`, so the
 * check cannot ask for the flag.
 */
const FACT_DST_CHECK = 'dst_entity IS NULL OR dst_literal IS NULL';
/** A label is an alias, a type, or the name a registration gives an erased entity again. */
const LABEL_KINDS = "kind IN ('alias', 'type', 'name')";
/** The checks before erasure, for taking its migration back. */
const LABEL_KINDS_BEFORE_ERASURE = "kind IN ('alias', 'type')";
const FACT_DST_CHECK_BEFORE_ERASURE = '(dst_entity IS NULL) <> (dst_literal IS NULL)';

/**
 * One row per erasure (SPEC §5.2), written with the rows it erases: what the search side reads to
 * learn that content it loaded is gone (ids only; ids never carry content).
 */
const ERASURES_TABLE = `CREATE TABLE rm_erasures (
     memory_id ${ID} NOT NULL,
     -- log position of the erasure record
     position bigint NOT NULL,
     recorded_at timestamptz NOT NULL,
     subject_kind text NOT NULL CHECK (subject_kind IN ('entity', 'fact', 'mention', 'doc')),
     subject_id ${ID} NOT NULL,
     entities text[] NOT NULL,
     facts text[] NOT NULL,
     events text[] NOT NULL,
     mentions text[] NOT NULL
   )`;

/** Durative topics (SPEC §5.4), versioned like episodes; `member_kinds[i]` is the kind of `members[i]`. */
const TOPIC_STATEMENTS = [
  `CREATE TABLE rm_topic_versions (
     memory_id ${ID} NOT NULL,
     topic_id ${ID} NOT NULL,
     version_no integer NOT NULL,
     title text NULL,
     summary text NULL,
     window_from timestamptz NOT NULL,
     window_to timestamptz NULL,
     members text[] NOT NULL,
     member_kinds text[] NOT NULL,
     erased boolean NOT NULL DEFAULT false,
     recorded_from timestamptz NOT NULL,
     recorded_to timestamptz NULL,
     ${VERSION_CHAIN_COLUMNS}
   )`,
  ...primaryKey('rm_topic_versions', 'memory_id, topic_id, version_no'),
  ...versionedConstraints('rm_topic_versions', 'topic_id'),
  `CREATE INDEX rm_topic_versions_cut ON rm_topic_versions USING gist (memory_id, tstzrange(recorded_from, recorded_to, '[)'))`,
];

const ENTITY_NAME_KEY_INDEX = 'CREATE INDEX rm_entities_name_key ON rm_entities (memory_id, name_key)';
const ENTITY_LABEL_KEY_INDEX = 'CREATE INDEX rm_entity_labels_value_key ON rm_entity_labels (memory_id, kind, value_key)';

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
     ${VERSION_CHAIN_COLUMNS},
     confidence double precision NULL,
     evidence text[] NOT NULL,
     -- its content (source, and a literal dst) was erased (SPEC §5.2)
     erased boolean NOT NULL DEFAULT false,
     source text NULL,
     CONSTRAINT rm_fact_versions_valid_interval CHECK (valid_to IS NULL OR valid_from < valid_to),
     CONSTRAINT rm_fact_versions_dst CHECK (${FACT_DST_CHECK})
   )`,
  ...primaryKey('rm_fact_versions', 'memory_id, fact_id, version_no'),
  ...versionedConstraints('rm_fact_versions', 'fact_id'),
  // Cuts filter by src (this index) or rel (the next); a whole-memory cut reads the memory's
  // versions (ReadModelsNoFactCutIndex1795800000000: no GiST index on the cut's ranges).
  'CREATE INDEX rm_fact_versions_src ON rm_fact_versions (memory_id, src, rel)',
  'CREATE INDEX rm_fact_versions_rel ON rm_fact_versions (memory_id, rel)',
  ...FACT_DST_INDEXES,
  // changes(from, to): versions opened (closed: rm_fact_versions_ends) in a record-time window.
  'CREATE INDEX rm_fact_versions_opened ON rm_fact_versions (memory_id, recorded_from)',

  `CREATE TABLE rm_entities (
     memory_id ${ID} NOT NULL,
     entity_id ${ID} NOT NULL,
     -- its first name: null once erased, with its key and its labels (a name given again is a 'name' label)
     name text NULL,
     recorded_from timestamptz NOT NULL,
     -- log position of the registration: aliases logged before it do not belong to it (as in evolve)
     position bigint NOT NULL,
     name_key ${ERASABLE_NAME_KEY},
     erased boolean NOT NULL DEFAULT false
   )`,
  ...primaryKey('rm_entities', 'memory_id, entity_id'),
  ENTITY_NAME_KEY_INDEX,
  // Aliases and types in log order (position, then index in the event): entity answers list them in that order.
  `CREATE TABLE rm_entity_labels (
     memory_id ${ID} NOT NULL,
     entity_id ${ID} NOT NULL,
     -- 'name': the name a registration gives an erased entity again (its row keeps the first one)
     kind text NOT NULL CHECK (${LABEL_KINDS}),
     value text NOT NULL,
     recorded_from timestamptz NOT NULL,
     position bigint NOT NULL,
     idx integer NOT NULL,
     value_key ${NAME_KEY}
   )`,
  ...primaryKey('rm_entity_labels', 'memory_id, entity_id, position, kind, idx'),
  ENTITY_LABEL_KEY_INDEX,
  // seq = log position: merges are replayed in log order to rebuild the merge forest at a record time.
  `CREATE TABLE rm_entity_merges (
     memory_id ${ID} NOT NULL,
     seq bigint NOT NULL,
     src_id ${ID} NOT NULL,
     dst_id ${ID} NOT NULL,
     src_root ${ID} NOT NULL,
     dst_root ${ID} NOT NULL,
     recorded_at timestamptz NOT NULL
   )`,
  ...primaryKey('rm_entity_merges', 'memory_id, seq'),
  'CREATE INDEX rm_entity_merges_recorded ON rm_entity_merges (memory_id, recorded_at)',

  `CREATE TABLE rm_relations (
     memory_id ${ID} NOT NULL,
     rel ${ID} NOT NULL,
     cardinality text NOT NULL CHECK (cardinality IN ('one', 'many')),
     recorded_from timestamptz NOT NULL
   )`,
  // Every declaration, not only the latest: a cut at an earlier record time reads the cardinality declared by then.
  ...primaryKey('rm_relations', RELATIONS_KEY),

  `CREATE TABLE rm_event_versions (
     memory_id ${ID} NOT NULL,
     event_id ${ID} NOT NULL,
     version_no integer NOT NULL,
     summary text NULL,
     erased boolean NOT NULL DEFAULT false,
     participants jsonb NOT NULL,
     includes_facts text[] NOT NULL,
     span_from timestamptz NOT NULL,
     span_to timestamptz NULL,
     recorded_from timestamptz NOT NULL,
     recorded_to timestamptz NULL,
     ${VERSION_CHAIN_COLUMNS}
   )`,
  ...primaryKey('rm_event_versions', 'memory_id, event_id, version_no'),
  ...versionedConstraints('rm_event_versions', 'event_id'),
  `CREATE INDEX rm_event_versions_cut ON rm_event_versions USING gist (memory_id, tstzrange(recorded_from, recorded_to, '[)'))`,

  `CREATE TABLE rm_event_links (
     memory_id ${ID} NOT NULL,
     kind text NOT NULL,
     from_event ${ID} NOT NULL,
     to_event ${ID} NOT NULL,
     qualifier text NULL,
     recorded_from timestamptz NOT NULL
   )`,
  ...primaryKey('rm_event_links', 'memory_id, kind, from_event, to_event'),

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
     ${VERSION_CHAIN_COLUMNS}
   )`,
  ...primaryKey('rm_episode_versions', 'memory_id, episode_id, version_no'),
  ...versionedConstraints('rm_episode_versions', 'episode_id'),
  `CREATE INDEX rm_episode_versions_cut ON rm_episode_versions USING gist (memory_id, tstzrange(recorded_from, recorded_to, '[)'))`,

  ...TOPIC_STATEMENTS,

  `CREATE TABLE rm_mentions (
     memory_id ${ID} NOT NULL,
     mention_id ${ID} NOT NULL,
     doc_id ${ID} NOT NULL,
     text text NULL,
     speaker text NULL,
     occurred_at timestamptz NULL,
     recorded_from timestamptz NOT NULL,
     erased boolean NOT NULL DEFAULT false
   )`,
  ...primaryKey('rm_mentions', 'memory_id, mention_id'),
  'CREATE INDEX rm_mentions_recorded ON rm_mentions (memory_id, recorded_from)',
  MENTIONS_DOC_INDEX,

  ERASURES_TABLE,
  ...primaryKey('rm_erasures', 'memory_id, position'),
];

export const READ_MODEL_TABLES = [
  'rm_erasures',
  'rm_mentions',
  'rm_topic_versions',
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

/**
 * For databases whose versioned tables have GiST exclusion constraints instead of the version
 * chain: adds its columns, fills them from each version's predecessor, and swaps the
 * constraints. Tables created by the statements above already have it (nothing to do).
 */
export class ReadModelsVersionChain1795600000000 implements MigrationInterface {
  readonly name = 'ReadModelsVersionChain1795600000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    for (const [table, id] of VERSIONED_TABLES) {
      const chained = await queryRunner.query(
        `SELECT 1 FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1 AND column_name = 'prev_recorded_to'`,
        [table],
      );
      if (chained.length > 0) continue;
      await queryRunner.query(`ALTER TABLE ${table} ${CHAIN_COLUMNS.map((column) => `ADD COLUMN ${column}`).join(', ')}`);
      await queryRunner.query(
        `UPDATE ${table} v SET prev_recorded_to = p.recorded_to FROM ${table} p
          WHERE p.memory_id = v.memory_id AND p.${id} = v.${id} AND p.version_no = v.version_no - 1`,
      );
      for (const sql of versionChain(table, id)) await queryRunner.query(sql);
      await queryRunner.query(`ALTER TABLE ${table} DROP CONSTRAINT ${table}_no_overlap`);
      await queryRunner.query(`DROP INDEX IF EXISTS ${table}_closed`);
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const [table, id] of VERSIONED_TABLES) {
      await queryRunner.query(`ALTER TABLE ${table} ADD CONSTRAINT ${table}_no_overlap
        EXCLUDE USING gist (memory_id WITH =, ${id} WITH =, tstzrange(recorded_from, recorded_to, '[)') WITH &&)`);
      await queryRunner.query(`ALTER TABLE ${table} DROP CONSTRAINT ${table}_previous_ended, DROP CONSTRAINT ${table}_follows_previous`);
      await queryRunner.query(`DROP INDEX ${table}_ends`);
      if (table === 'rm_fact_versions')
        await queryRunner.query(`CREATE INDEX ${table}_closed ON ${table} (memory_id, recorded_to) WHERE recorded_to IS NOT NULL`);
      await queryRunner.query(`ALTER TABLE ${table} DROP COLUMN prev_version_no, DROP COLUMN prev_recorded_to`);
    }
  }
}

/**
 * The unique index on open versions is implied by the version chain (a successor points at a
 * closed end, so only the last version can be open), read by no query, and costs a btree
 * insert per version written: this migration drops it.
 */
export class ReadModelsNoOpenIndex1795700000000 implements MigrationInterface {
  readonly name = 'ReadModelsNoOpenIndex1795700000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    for (const [table] of VERSIONED_TABLES) await queryRunner.query(`DROP INDEX IF EXISTS ${table}_open`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const [table, id] of VERSIONED_TABLES) await queryRunner.query(openIndex(table, id));
  }
}

/** The GiST index on the fact versions' cut ranges, for taking the migration back. */
const FACT_CUT_INDEX = `CREATE INDEX rm_fact_versions_cut ON rm_fact_versions
  USING gist (memory_id, tstzrange(recorded_from, recorded_to, '[)'), tstzrange(valid_from, valid_to, '[)'))`;

/**
 * The GiST index on the fact versions' cut ranges costs a GiST insert per version written, as
 * much as all the projector's other writes, and serves only cuts with no src or rel filter. Those
 * read the memory's versions by (memory_id) instead, which costs little next to building the
 * answer's facts. So this migration drops it.
 */
export class ReadModelsNoFactCutIndex1795800000000 implements MigrationInterface {
  readonly name = 'ReadModelsNoFactCutIndex1795800000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX IF EXISTS rm_fact_versions_cut');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(FACT_CUT_INDEX);
  }
}

/**
 * Reading one document's mentions must not scan every mention of its memory: this migration adds
 * their index to databases made before it (those made after have it from the schema already).
 */
export class ReadModelsMentionsByDoc1795910000000 implements MigrationInterface {
  readonly name = 'ReadModelsMentionsByDoc1795910000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(MENTIONS_DOC_INDEX.replace('CREATE INDEX', 'CREATE INDEX IF NOT EXISTS'));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX IF EXISTS rm_mentions_doc');
  }
}

/** Each keyed table: the text its key is computed from, the key column, the key's index. */
const ENTITY_KEYS = [
  ['rm_entities', 'name', 'name_key', ENTITY_NAME_KEY_INDEX],
  ['rm_entity_labels', 'value', 'value_key', ENTITY_LABEL_KEY_INDEX],
] as const;

/**
 * Adds the entities' name keys and label keys (see NAME_KEY) to databases made before them, filled
 * from the stored names and values, with their indexes; tables made after have them already.
 */
export class ReadModelsEntityNameKeys1796000000000 implements MigrationInterface {
  readonly name = 'ReadModelsEntityNameKeys1796000000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    for (const [table, source, key, index] of ENTITY_KEYS) {
      const present = await queryRunner.query(
        `SELECT 1 FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1 AND column_name = $2`,
        [table, key],
      );
      if (present.length === 0) {
        await queryRunner.query(`ALTER TABLE ${table} ADD COLUMN ${key} ${NAME_KEY.replace(' NOT NULL', '')}`);
        // Distinct texts, a bounded number per round: names repeat across memories and rows.
        for (;;) {
          const rows: { text: string }[] = await queryRunner.query(
            `SELECT DISTINCT ${source} AS text FROM ${table} WHERE ${key} IS NULL LIMIT 10000`,
          );
          if (rows.length === 0) break;
          await queryRunner.query(
            `UPDATE ${table} t SET ${key} = k.key FROM unnest($1::text[], $2::text[]) AS k(text, key)
              WHERE t.${source} = k.text AND t.${key} IS NULL`,
            [rows.map((r) => r.text), rows.map((r) => normaliseName(r.text))],
          );
        }
        await queryRunner.query(`ALTER TABLE ${table} ALTER COLUMN ${key} SET NOT NULL`);
      }
      await queryRunner.query(index.replace('CREATE INDEX', 'CREATE INDEX IF NOT EXISTS'));
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const [table, , key] of ENTITY_KEYS) await queryRunner.query(`ALTER TABLE ${table} DROP COLUMN IF EXISTS ${key}`);
  }
}

/**
 * Erasure (SPEC §5.2) on databases made before it: content columns become nullable, every
 * table of erasable content gets its `erased` flag, a fact version may hold no dst (an erased
 * literal), an entity label may be a name given again after an erasure, and the erasures get
 * their table; tables made after have all this already.
 */
export class ReadModelsErasure1796200000000 implements MigrationInterface {
  readonly name = 'ReadModelsErasure1796200000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    for (const [table, columns] of ERASABLE) {
      for (const column of columns) await queryRunner.query(`ALTER TABLE ${table} ALTER COLUMN ${column} DROP NOT NULL`);
      await queryRunner.query(`ALTER TABLE ${table} ADD COLUMN IF NOT EXISTS erased boolean NOT NULL DEFAULT false`);
    }
    // Every row meets the weaker check: validated after it is in place, the scan does not hold off the projector's writes.
    await queryRunner.query(
      `ALTER TABLE rm_fact_versions DROP CONSTRAINT IF EXISTS rm_fact_versions_dst, ` +
        `ADD CONSTRAINT rm_fact_versions_dst CHECK (${FACT_DST_CHECK}) NOT VALID`,
    );
    await queryRunner.query('ALTER TABLE rm_fact_versions VALIDATE CONSTRAINT rm_fact_versions_dst');
    await queryRunner.query(
      `ALTER TABLE rm_entity_labels DROP CONSTRAINT IF EXISTS rm_entity_labels_kind_check, ` +
        `ADD CONSTRAINT rm_entity_labels_kind_check CHECK (${LABEL_KINDS}) NOT VALID`,
    );
    await queryRunner.query('ALTER TABLE rm_entity_labels VALIDATE CONSTRAINT rm_entity_labels_kind_check');
    const made = await queryRunner.query(`SELECT to_regclass('rm_erasures') IS NOT NULL AS made`);
    if (!made[0].made) for (const sql of [ERASURES_TABLE, ...primaryKey('rm_erasures', 'memory_id, position')]) await queryRunner.query(sql);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE IF EXISTS rm_erasures');
    await queryRunner.query(
      `ALTER TABLE rm_entity_labels DROP CONSTRAINT IF EXISTS rm_entity_labels_kind_check, ` +
        `ADD CONSTRAINT rm_entity_labels_kind_check CHECK (${LABEL_KINDS_BEFORE_ERASURE})`,
    );
    await queryRunner.query(
      `ALTER TABLE rm_fact_versions DROP CONSTRAINT IF EXISTS rm_fact_versions_dst, ` +
        `ADD CONSTRAINT rm_fact_versions_dst CHECK (${FACT_DST_CHECK_BEFORE_ERASURE})`,
    );
    for (const [table] of ERASABLE) await queryRunner.query(`ALTER TABLE ${table} DROP COLUMN IF EXISTS erased`);
  }
}

/** Adds the indexes of the `dst` filter (FACT_DST_INDEXES) to databases made before them; those made after have them. */
export class ReadModelsFactsByDst1796300000000 implements MigrationInterface {
  readonly name = 'ReadModelsFactsByDst1796300000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    for (const index of FACT_DST_INDEXES) await queryRunner.query(index.replace('CREATE INDEX', 'CREATE INDEX IF NOT EXISTS'));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX IF EXISTS rm_fact_versions_dst_entity, rm_fact_versions_dst_text');
  }
}

/**
 * Keys the relations by declaration (RELATIONS_KEY) on databases made when they held only each relation's
 * latest one; tables made after are keyed so already. The declarations replaced before stay lost until a
 * rebuild (`npm run rebuild`) reads them from the log again: until then a check at an earlier record time
 * takes a relation's latest cardinality from when it was declared.
 */
export class ReadModelsRelationDeclarations1796400000000 implements MigrationInterface {
  readonly name = 'ReadModelsRelationDeclarations1796400000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE rm_relations DROP CONSTRAINT IF EXISTS rm_relations_pkey');
    await queryRunner.query('DROP INDEX IF EXISTS rm_relations_pkey');
    for (const sql of primaryKey('rm_relations', RELATIONS_KEY)) await queryRunner.query(sql);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `DELETE FROM rm_relations r USING rm_relations later
        WHERE later.memory_id = r.memory_id AND later.rel = r.rel AND later.recorded_from > r.recorded_from`,
    );
    await queryRunner.query('ALTER TABLE rm_relations DROP CONSTRAINT IF EXISTS rm_relations_pkey');
    for (const sql of primaryKey('rm_relations', 'memory_id, rel')) await queryRunner.query(sql);
  }
}

/** Adds the topics' table (SPEC §5.4) to read models made before it; a database made since has it from the first migration. */
export class ReadModelsTopics1796600000000 implements MigrationInterface {
  readonly name = 'ReadModelsTopics1796600000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const [exists] = (await queryRunner.query(`SELECT to_regclass('rm_topic_versions') IS NOT NULL AS present`)) as { present: boolean }[];
    if (exists?.present) return;
    for (const sql of TOPIC_STATEMENTS) await queryRunner.query(sql);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE IF EXISTS rm_topic_versions');
  }
}

const ERASABLE: [string, string[]][] = [
  ['rm_entities', ['name', 'name_key']],
  ['rm_fact_versions', []],
  ['rm_event_versions', ['summary']],
  ['rm_mentions', ['text']],
];

export const readModelMigrations: MigrationInterface[] = [
  new ReadModelsSchema1763856000000(),
  new ReadModelsVersionChain1795600000000(),
  new ReadModelsNoOpenIndex1795700000000(),
  new ReadModelsNoFactCutIndex1795800000000(),
  new ReadModelsMentionsByDoc1795910000000(),
  new ReadModelsEntityNameKeys1796000000000(),
  new ReadModelsErasure1796200000000(),
  new ReadModelsFactsByDst1796300000000(),
  new ReadModelsRelationDeclarations1796400000000(),
  new ReadModelsTopics1796600000000(),
  new ItemTiersSchema1796700000000(),
];
