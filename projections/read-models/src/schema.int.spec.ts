import { MIGRATIONS_TABLE, type TestDatabase, createTestDatabase, migrate } from '@memotrace/postgres';
import { DatabaseError } from 'pg';
import type { QueryRunner } from 'typeorm';
import {
  ReadModelsEntityNameKeys1796000000000,
  ReadModelsErasure1796200000000,
  ReadModelsFactsByDst1796300000000,
  ReadModelsMentionsByDoc1795910000000,
  ReadModelsNoFactCutIndex1795800000000,
  ReadModelsNoOpenIndex1795700000000,
  ReadModelsRelationDeclarations1796400000000,
  ReadModelsTopics1796600000000,
  ReadModelsVersionChain1795600000000,
  readModelMigrations,
} from './schema';

/** The version invariants are database guarantees, whoever writes. */
let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase();
  expect(await migrate(db.pool, readModelMigrations)).toEqual([
    'ReadModelsSchema1763856000000',
    'ReadModelsVersionChain1795600000000',
    'ReadModelsNoOpenIndex1795700000000',
    'ReadModelsNoFactCutIndex1795800000000',
    'ReadModelsMentionsByDoc1795910000000',
    'ReadModelsEntityNameKeys1796000000000',
    'ReadModelsErasure1796200000000',
    'ReadModelsFactsByDst1796300000000',
    'ReadModelsRelationDeclarations1796400000000',
    'ReadModelsTopics1796600000000',
    'ItemTiersSchema1796700000000',
  ]);
});

afterAll(async () => {
  await db?.drop();
});

const T = (h: number) => new Date(Date.UTC(2024, 4, 6, h)).toISOString();

/** A fact version; `prev` is its predecessor's end as the projector writes it (by default: none for version 1, else `recordedFrom`). */
async function insertFact(
  factId: string,
  versionNo: number,
  recordedFrom: string,
  recordedTo: string | null,
  valid: [string, string | null] = [T(0), null],
  prev = versionNo === 1 ? null : recordedFrom,
) {
  await db.pool.query(
    'INSERT INTO rm_fact_versions (memory_id, fact_id, version_no, src, rel, dst_entity, valid_from, valid_to, ' +
      `recorded_from, recorded_to, prev_recorded_to, evidence)
     VALUES ('m', $1, $2, 'a', 'knows', 'b', $3, $4, $5, $6, $7, '{}')`,
    [factId, versionNo, valid[0], valid[1], recordedFrom, recordedTo, prev],
  );
}

async function pgError(promise: Promise<unknown>): Promise<{ code?: string; constraint?: string }> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DatabaseError);
  return error as DatabaseError;
}

describe('read-model schema', () => {
  it('has no unique index on open versions (the chain implies it); taking the migration back restores it', async () => {
    const openIndexes = async () =>
      (
        await db.pool.query<{ name: string }>(
          `SELECT indexname AS name FROM pg_indexes WHERE schemaname = current_schema() AND indexname LIKE '%\\_open' ORDER BY 1`,
        )
      ).rows.map((r) => r.name);
    expect(await openIndexes()).toEqual([]);
    const runner = { query: async (sql: string, params?: unknown[]) => (await db.pool.query(sql, params)).rows } as unknown as QueryRunner;
    const migration = new ReadModelsNoOpenIndex1795700000000();
    await migration.down(runner);
    expect(await openIndexes()).toEqual(['rm_episode_versions_open', 'rm_event_versions_open', 'rm_fact_versions_open']);
    await migration.up(runner);
    expect(await openIndexes()).toEqual([]);
  });

  it('has no GiST index on the fact versions (the cut filters by src or rel); taking the migration back restores it', async () => {
    const gistOnFacts = async () =>
      (
        await db.pool.query<{ name: string }>(
          'SELECT indexname AS name FROM pg_indexes WHERE schemaname = current_schema() ' +
            "AND tablename = 'rm_fact_versions' AND indexdef ILIKE '%USING gist%'",
        )
      ).rows.map((r) => r.name);
    expect(await gistOnFacts()).toEqual([]);
    const runner = { query: async (sql: string, params?: unknown[]) => (await db.pool.query(sql, params)).rows } as unknown as QueryRunner;
    const migration = new ReadModelsNoFactCutIndex1795800000000();
    await migration.down(runner);
    expect(await gistOnFacts()).toEqual(['rm_fact_versions_cut']);
    await migration.up(runner);
    expect(await gistOnFacts()).toEqual([]);
  });

  it('indexes mentions by document; the migration adds the index where it is missing and is a no-op where it is not', async () => {
    const mentionIndexes = async () =>
      (
        await db.pool.query<{ name: string; def: string }>(
          "SELECT indexname AS name, indexdef AS def FROM pg_indexes WHERE schemaname = current_schema() AND tablename = 'rm_mentions' ORDER BY 1",
        )
      ).rows.map((r) => `${r.name}: ${r.def.replace(/^.* USING /, '')}`);
    const expected = [
      'rm_mentions_doc: btree (memory_id, doc_id)',
      'rm_mentions_pkey: btree (memory_id, mention_id)',
      'rm_mentions_recorded: btree (memory_id, recorded_from)',
    ];
    expect(await mentionIndexes()).toEqual(expected);
    const runner = { query: async (sql: string, params?: unknown[]) => (await db.pool.query(sql, params)).rows } as unknown as QueryRunner;
    const migration = new ReadModelsMentionsByDoc1795910000000();
    await migration.up(runner);
    expect(await mentionIndexes()).toEqual(expected);
    await migration.down(runner);
    expect(await mentionIndexes()).toEqual(expected.slice(1));
    await migration.up(runner);
    expect(await mentionIndexes()).toEqual(expected);
  });

  it('indexes fact versions by their object, entity or literal; the migration adds the indexes where they are missing', async () => {
    const dstIndexes = async () =>
      (
        await db.pool.query<{ name: string; def: string }>(
          'SELECT indexname AS name, indexdef AS def FROM pg_indexes ' +
            "WHERE schemaname = current_schema() AND indexname LIKE 'rm_fact_versions_dst%' ORDER BY 1",
        )
      ).rows.map((r) => `${r.name}: ${r.def.replace(/^.* USING /, '')}`);
    const expected = [
      'rm_fact_versions_dst_entity: btree (memory_id, dst_entity) WHERE (dst_entity IS NOT NULL)',
      'rm_fact_versions_dst_text: btree (memory_id, dst_text) WHERE (dst_text IS NOT NULL)',
    ];
    expect(await dstIndexes()).toEqual(expected);
    const runner = { query: async (sql: string, params?: unknown[]) => (await db.pool.query(sql, params)).rows } as unknown as QueryRunner;
    const migration = new ReadModelsFactsByDst1796300000000();
    await migration.down(runner);
    expect(await dstIndexes()).toEqual([]);
    await migration.up(runner);
    await migration.up(runner);
    expect(await dstIndexes()).toEqual(expected);
  });

  it('keeps every declaration of a relation; the migration keys a database made before by declaration, and back', async () => {
    const key = async () =>
      (await db.pool.query<{ def: string }>("SELECT pg_get_constraintdef(oid) AS def FROM pg_constraint WHERE conname = 'rm_relations_pkey'")).rows[0]
        ?.def;
    const declare = (rel: string, cardinality: string, at: string) =>
      db.pool.query("INSERT INTO rm_relations (memory_id, rel, cardinality, recorded_from) VALUES ('m-rel', $1, $2, $3)", [rel, cardinality, at]);
    expect(await key()).toBe('PRIMARY KEY (memory_id, rel, recorded_from)');
    await declare('works_at', 'many', T(1));
    await declare('works_at', 'one', T(2));
    const runner = { query: async (sql: string, params?: unknown[]) => (await db.pool.query(sql, params)).rows } as unknown as QueryRunner;
    const migration = new ReadModelsRelationDeclarations1796400000000();
    // Back: the latest declaration of each relation, keyed by relation.
    await migration.down(runner);
    expect(await key()).toBe('PRIMARY KEY (memory_id, rel)');
    const held = await db.pool.query("SELECT cardinality FROM rm_relations WHERE memory_id = 'm-rel'");
    expect(held.rows).toEqual([{ cardinality: 'one' }]);
    await migration.up(runner);
    expect(await key()).toBe('PRIMARY KEY (memory_id, rel, recorded_from)');
    await declare('works_at', 'many', T(3));
    expect((await db.pool.query("SELECT count(*)::int AS n FROM rm_relations WHERE memory_id = 'm-rel'")).rows).toEqual([{ n: 2 }]);
    await db.pool.query("DELETE FROM rm_relations WHERE memory_id = 'm-rel'");
  });

  it('adds the topics table to read models made before it, and is a no-op where it is', async () => {
    const runner = { query: async (sql: string, params?: unknown[]) => (await db.pool.query(sql, params)).rows } as unknown as QueryRunner;
    const migration = new ReadModelsTopics1796600000000();
    const present = async () => (await db.pool.query(`SELECT to_regclass('rm_topic_versions') IS NOT NULL AS p`)).rows[0].p;
    expect(await present()).toBe(true);
    await migration.up(runner); // made by the first migration already: nothing to do
    await migration.down(runner);
    expect(await present()).toBe(false);
    await migration.up(runner);
    expect(await present()).toBe(true);
    // The same version chain as episodes: version 2 needs version 1 ended where it starts.
    const insert = (version: number, from: string, to: string | null, prev: string | null) =>
      db.pool.query(
        `INSERT INTO rm_topic_versions (memory_id, topic_id, version_no, title, summary, window_from, members, member_kinds,
                                        recorded_from, recorded_to, prev_recorded_to)
         VALUES ('m-top', 't', $1, 'x', '', $2, '{m}', '{mention}', $2, $3, $4)`,
        [version, from, to, prev],
      );
    await insert(1, T(1), T(2), null);
    expect(await pgError(insert(2, T(1), null, T(1)))).toMatchObject({ code: '23503' });
    await insert(2, T(2), null, T(2));
    await db.pool.query("DELETE FROM rm_topic_versions WHERE memory_id = 'm-top'");
  });

  it('migrating again runs nothing', async () => {
    expect(await migrate(db.pool, readModelMigrations)).toEqual([]);
  });

  it('rejects a fact version whose record interval overlaps its predecessor (version chain)', async () => {
    await insertFact('f1', 1, T(1), T(3));
    // Starting before the predecessor's end, whatever end it claims for it.
    expect(await pgError(insertFact('f1', 2, T(2), T(4)))).toMatchObject({ code: '23503', constraint: 'rm_fact_versions_previous_ended' });
    expect(await pgError(insertFact('f1', 2, T(2), T(4), undefined, T(3)))).toMatchObject({
      code: '23514',
      constraint: 'rm_fact_versions_follows_previous',
    });
    // Version 2 without a version 1, version 1 claiming a predecessor, a gap in the numbering.
    expect(await pgError(insertFact('f5', 2, T(3), null))).toMatchObject({ code: '23503' });
    expect(await pgError(insertFact('f5', 1, T(3), null, undefined, T(2)))).toMatchObject({
      code: '23514',
      constraint: 'rm_fact_versions_follows_previous',
    });
    expect(await pgError(insertFact('f1', 3, T(3), null, undefined, T(3)))).toMatchObject({ code: '23503' });
    // Adjacent half-open intervals do not overlap; a later start leaves a gap (an archive); another fact may overlap freely.
    await insertFact('f1', 2, T(3), T(4));
    await insertFact('f1', 3, T(6), null, undefined, T(4));
    await insertFact('f2', 1, T(1), T(3));
  });

  it('allows at most one open version per fact, and empty [r, r) versions', async () => {
    await insertFact('f3', 1, T(1), T(1));
    await insertFact('f3', 2, T(1), null);
    // A version after an open one: its predecessor has no end to point at.
    expect(await pgError(insertFact('f3', 3, T(2), null))).toMatchObject({ code: '23503', constraint: 'rm_fact_versions_previous_ended' });
    // ... nor can it claim to have none.
    expect(await pgError(insertFact('f3', 3, T(2), null, undefined, null))).toMatchObject({
      code: '23514',
      constraint: 'rm_fact_versions_follows_previous',
    });
    await db.pool.query(`UPDATE rm_fact_versions SET recorded_to = $1 WHERE fact_id = 'f3' AND version_no = 2`, [T(5)]);
    await insertFact('f3', 3, T(5), T(5));
    const { rows } = await db.pool.query(`SELECT count(*)::int AS n FROM rm_fact_versions WHERE fact_id = 'f3'`);
    expect(rows[0].n).toBe(3);
  });

  it('keeps a closed version closed where its successor points at its end', async () => {
    await insertFact('f6', 1, T(1), T(2));
    await insertFact('f6', 2, T(2), null);
    expect(
      await pgError(db.pool.query(`UPDATE rm_fact_versions SET recorded_to = $1 WHERE fact_id = 'f6' AND version_no = 1`, [T(3)])),
    ).toMatchObject({ code: '23503' });
  });

  it('rejects validity intervals with validTo <= validFrom, and record intervals running backwards', async () => {
    expect(await pgError(insertFact('f4', 1, T(1), null, [T(2), T(2)]))).toMatchObject({
      code: '23514',
      constraint: 'rm_fact_versions_valid_interval',
    });
    expect(await pgError(insertFact('f4', 1, T(2), T(1)))).toMatchObject({ code: '23514', constraint: 'rm_fact_versions_recorded_interval' });
  });

  it('guards event and episode versions the same way', async () => {
    const insertEvent = (no: number, from: string, to: string | null) =>
      db.pool.query(
        'INSERT INTO rm_event_versions (memory_id, event_id, version_no, summary, participants, includes_facts, span_from, ' +
          `recorded_from, recorded_to, prev_recorded_to)
         VALUES ('m', 'ev', $1, 's', '[]', '{}', $2, $2, $3, CASE WHEN $1::int > 1 THEN $2::timestamptz END)`,
        [no, from, to],
      );
    await insertEvent(1, T(1), T(3));
    expect(await pgError(insertEvent(2, T(2), null))).toMatchObject({ code: '23503', constraint: 'rm_event_versions_previous_ended' });
    const insertEpisode = (no: number, from: string, to: string | null) =>
      db.pool.query(
        `INSERT INTO rm_episode_versions (memory_id, episode_id, version_no, title, window_from, events, recorded_from, recorded_to, prev_recorded_to)
         VALUES ('m', 'ep', $1, 't', $2, '{}', $2, $3, CASE WHEN $1::int > 1 THEN $2::timestamptz END)`,
        [no, from, to],
      );
    await insertEpisode(1, T(1), null);
    expect(await pgError(insertEpisode(2, T(2), null))).toMatchObject({ code: '23503', constraint: 'rm_episode_versions_previous_ended' });
  });

  it('holds an erased literal (no dst at all) but never two dsts, and names given again as labels', async () => {
    const insert = (factId: string, entity: string | null, literal: string | null) =>
      db.pool.query(
        `INSERT INTO rm_fact_versions (memory_id, fact_id, version_no, src, rel, dst_entity, dst_literal, valid_from, recorded_from, evidence, erased)
         VALUES ('m', $1, 1, 'a', 'email', $2::text, $3::jsonb, $4, $4, '{}', $2::text IS NULL AND $3::jsonb IS NULL)`,
        [factId, entity, literal, T(1)],
      );
    await insert('erased-literal', null, null);
    expect(await pgError(insert('two-dsts', 'b', '{"literal": "x", "datatype": "string"}'))).toMatchObject({
      code: '23514',
      constraint: 'rm_fact_versions_dst',
    });
    const label = (kind: string, idx: number) =>
      db.pool.query(
        `INSERT INTO rm_entity_labels (memory_id, entity_id, kind, value, recorded_from, position, idx, value_key)
         VALUES ('m', 'a', $1, 'Ada', $2, 9, $3, 'ada')`,
        [kind, T(1), idx],
      );
    await label('name', 0);
    expect(await pgError(label('nick', 1))).toMatchObject({ code: '23514', constraint: 'rm_entity_labels_kind_check' });
  });

  it('migrates a database made before erasure: nullable content, erased flags, the weaker dst check, name labels, the erasures table', async () => {
    const old = await createTestDatabase();
    const catalog = async (pool: TestDatabase['pool']) => ({
      columns: (
        await pool.query(
          `SELECT table_name, column_name, is_nullable, column_default FROM information_schema.columns
            WHERE table_schema = current_schema() AND table_name LIKE 'rm\\_%' ORDER BY 1, 2`,
        )
      ).rows,
      constraints: (
        await pool.query(
          `SELECT c.relname, k.conname, pg_get_constraintdef(k.oid) AS def, k.convalidated FROM pg_constraint k
             JOIN pg_class c ON c.oid = k.conrelid JOIN pg_namespace n ON n.oid = c.relnamespace
            WHERE n.nspname = current_schema() AND c.relname LIKE 'rm\\_%' ORDER BY 1, 2`,
        )
      ).rows,
    });
    try {
      await migrate(old.pool, readModelMigrations);
      const runner = { query: async (sql: string, params?: unknown[]) => (await old.pool.query(sql, params)).rows } as unknown as QueryRunner;
      const erasure = new ReadModelsErasure1796200000000();
      await erasure.down(runner);
      await old.pool.query(`DELETE FROM ${MIGRATIONS_TABLE} WHERE name = $1`, [erasure.name]);
      for (const [table, column] of [
        ['rm_entities', 'name'],
        ['rm_entities', 'name_key'],
        ['rm_event_versions', 'summary'],
        ['rm_mentions', 'text'],
      ])
        await old.pool.query(`ALTER TABLE ${table} ALTER COLUMN ${column} SET NOT NULL`);
      await old.pool.query(
        `INSERT INTO rm_entities (memory_id, entity_id, name, recorded_from, position, name_key) VALUES ('m', 'a', 'Ada', $1, 1, 'ada')`,
        [T(1)],
      );
      await old.pool.query(
        `INSERT INTO rm_fact_versions (memory_id, fact_id, version_no, src, rel, dst_literal, valid_from, recorded_from, evidence)
         VALUES ('m', 'f', 1, 'a', 'email', '{"literal": "x", "datatype": "string"}', $1, $1, '{}')`,
        [T(1)],
      );
      expect(
        await pgError(
          old.pool.query(`INSERT INTO rm_mentions (memory_id, mention_id, doc_id, text, recorded_from) VALUES ('m', 'x', 'd', NULL, $1)`, [T(1)]),
        ),
      ).toMatchObject({
        code: '23502',
      });
      expect(await migrate(old.pool, readModelMigrations)).toEqual([erasure.name]);
      // The rows it found are not erased; the tables are those the schema makes today.
      expect((await old.pool.query('SELECT erased FROM rm_entities')).rows).toEqual([{ erased: false }]);
      expect((await old.pool.query('SELECT erased FROM rm_fact_versions')).rows).toEqual([{ erased: false }]);
      expect(await catalog(old.pool)).toEqual(await catalog(db.pool));
      await old.pool.query(
        `INSERT INTO rm_mentions (memory_id, mention_id, doc_id, text, recorded_from, erased) VALUES ('m', 'x', 'd', NULL, $1, true)`,
        [T(1)],
      );
      // On tables made with erasure, it changes nothing.
      await erasure.up(runner);
      expect(await catalog(old.pool)).toEqual(await catalog(db.pool));
    } finally {
      await old.drop();
    }
  });

  it('migrates a database made before the entity name keys: fills them as the domain normalises names, then indexes them', async () => {
    const old = await createTestDatabase();
    try {
      await migrate(old.pool, readModelMigrations);
      const runner = { query: async (sql: string, params?: unknown[]) => (await old.pool.query(sql, params)).rows } as unknown as QueryRunner;
      const keys = new ReadModelsEntityNameKeys1796000000000();
      await keys.down(runner);
      await old.pool.query(`DELETE FROM ${MIGRATIONS_TABLE} WHERE name = $1`, [keys.name]);
      await old.pool.query(
        `INSERT INTO rm_entities (memory_id, entity_id, name, recorded_from, position)
         VALUES ('m', 'a', ' Alice  SMITH ', $1, 1), ('m', 's', 'Strauß', $1, 2), ('n', 'a', ' Alice  SMITH ', $1, 1)`,
        [T(1)],
      );
      await old.pool.query(
        `INSERT INTO rm_entity_labels (memory_id, entity_id, kind, value, recorded_from, position, idx)
         VALUES ('m', 'a', 'alias', 'ALI', $1, 1, 0), ('m', 'a', 'type', 'Person', $1, 1, 0)`,
        [T(1)],
      );
      expect(await migrate(old.pool, readModelMigrations)).toEqual([keys.name]);
      const { rows: entities } = await old.pool.query(`SELECT memory_id, entity_id, name_key FROM rm_entities ORDER BY 1, 2`);
      expect(entities).toEqual([
        { memory_id: 'm', entity_id: 'a', name_key: 'alice smith' },
        { memory_id: 'm', entity_id: 's', name_key: 'strauss' },
        { memory_id: 'n', entity_id: 'a', name_key: 'alice smith' },
      ]);
      const { rows: labels } = await old.pool.query(`SELECT kind, value_key FROM rm_entity_labels ORDER BY 1`);
      expect(labels).toEqual([
        { kind: 'alias', value_key: 'ali' },
        { kind: 'type', value_key: 'person' },
      ]);
      const { rows: columns } = await old.pool.query(
        `SELECT table_name, is_nullable FROM information_schema.columns
          WHERE table_schema = current_schema() AND column_name IN ('name_key', 'value_key') ORDER BY 1`,
      );
      expect(columns).toEqual([
        { table_name: 'rm_entities', is_nullable: 'NO' },
        { table_name: 'rm_entity_labels', is_nullable: 'NO' },
      ]);
      const { rows: indexes } = await old.pool.query(
        `SELECT indexname FROM pg_indexes
          WHERE schemaname = current_schema() AND indexname IN ('rm_entities_name_key', 'rm_entity_labels_value_key') ORDER BY 1`,
      );
      expect(indexes.map((r) => r.indexname)).toEqual(['rm_entities_name_key', 'rm_entity_labels_value_key']);
      // On tables made with the keys, it changes nothing.
      await keys.up(runner);
      expect((await old.pool.query(`SELECT name_key FROM rm_entities ORDER BY memory_id, entity_id`)).rows.map((r) => r.name_key)).toEqual([
        'alice smith',
        'strauss',
        'alice smith',
      ]);
    } finally {
      await old.drop();
    }
  });

  it("migrates a database made before the version chain: fills each version's predecessor end and swaps the constraints", async () => {
    const old = await createTestDatabase();
    try {
      await migrate(old.pool, readModelMigrations);
      // Back to the schema as it was (GiST exclusion, no chain columns), with versions written then.
      const chain = new ReadModelsVersionChain1795600000000();
      await chain.down({ query: async (sql: string, params?: unknown[]) => (await old.pool.query(sql, params)).rows } as unknown as QueryRunner);
      await old.pool.query(`DELETE FROM ${MIGRATIONS_TABLE} WHERE name = $1`, [chain.name]);
      const write = (fact: string, no: number, from: string, to: string | null) =>
        old.pool.query(
          `INSERT INTO rm_fact_versions (memory_id, fact_id, version_no, src, rel, dst_entity, valid_from, recorded_from, recorded_to, evidence)
           VALUES ('m', $1, $2, 'a', 'knows', 'b', $3, $3, $4, '{}')`,
          [fact, no, from, to],
        );
      await write('g', 1, T(1), T(2));
      await write('g', 2, T(2), T(3));
      await write('g', 3, T(5), null);
      await write('h', 1, T(1), null);
      expect(await migrate(old.pool, readModelMigrations)).toEqual([chain.name]);
      const { rows } = await old.pool.query(`SELECT fact_id, version_no, prev_recorded_to FROM rm_fact_versions ORDER BY fact_id, version_no`);
      expect(rows.map((r) => [r.fact_id, r.version_no, r.prev_recorded_to?.toISOString() ?? null])).toEqual([
        ['g', 1, null],
        ['g', 2, T(2)],
        ['g', 3, T(3)],
        ['h', 1, null],
      ]);
      const { rows: constraints } = await old.pool.query(
        `SELECT conname FROM pg_constraint WHERE conrelid = 'rm_fact_versions'::regclass ORDER BY conname`,
      );
      expect(constraints.map((c) => c.conname)).toEqual(
        expect.arrayContaining(['rm_fact_versions_follows_previous', 'rm_fact_versions_previous_ended']),
      );
      expect(constraints.map((c) => c.conname)).not.toContain('rm_fact_versions_no_overlap');
    } finally {
      await old.drop();
    }
  });
});
