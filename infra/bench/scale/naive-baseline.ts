import type { Pool } from 'pg';

/**
 * The naive design many agent-memory tools use, loaded with the same fact versions:
 * one table, each version a row, the record end implied by the row that invalidated
 * it. An ARCHIVE_EDGE has no successor version, so it becomes a tombstone row
 * (properties.archive) that invalidates the archived one. Lives in schema
 * `naive_baseline` of the service's database.
 */
export const NAIVE_SCHEMA = 'naive_baseline';
const TOMBSTONE_ID_OFFSET = 1_000_000_000_000;

export async function loadNaiveBaseline(pool: Pool): Promise<{ rows: number; bytes: number; seconds: number }> {
  const t0 = performance.now();
  await pool.query(`DROP SCHEMA IF EXISTS ${NAIVE_SCHEMA} CASCADE`);
  await pool.query(`CREATE SCHEMA ${NAIVE_SCHEMA}`);
  await pool.query(`CREATE TABLE ${NAIVE_SCHEMA}.relationships (
      id bigint PRIMARY KEY,
      from_id text NOT NULL,
      to_id text NOT NULL,
      rel_type text NOT NULL,
      valid_from timestamptz NOT NULL,
      valid_until timestamptz NULL,
      recorded_at timestamptz NOT NULL,
      invalidated_by bigint NULL,
      properties jsonb NOT NULL)`);
  // Versions in (memory, fact, version) order: a fact's next version is the next id.
  await pool.query(`CREATE TEMP TABLE naive_versions AS
      SELECT row_number() OVER (ORDER BY memory_id, fact_id, version_no) AS id,
             memory_id, fact_id, src, rel, dst_entity, dst_text, valid_from, valid_to, recorded_from, recorded_to, confidence,
             lead(recorded_from) OVER (PARTITION BY memory_id, fact_id ORDER BY version_no) AS next_from
        FROM rm_fact_versions`);
  await pool.query(`INSERT INTO ${NAIVE_SCHEMA}.relationships
      SELECT id, memory_id || '/' || src, coalesce(memory_id || '/' || dst_entity, dst_text), rel,
             valid_from, valid_to, recorded_from,
             CASE WHEN recorded_to IS NULL THEN NULL WHEN next_from = recorded_to THEN id + 1 ELSE id + ${TOMBSTONE_ID_OFFSET} END,
             jsonb_build_object('factId', fact_id, 'confidence', confidence)
        FROM naive_versions`);
  await pool.query(`INSERT INTO ${NAIVE_SCHEMA}.relationships
      SELECT id + ${TOMBSTONE_ID_OFFSET}, memory_id || '/' || src, coalesce(memory_id || '/' || dst_entity, dst_text), rel,
             recorded_to, recorded_to, recorded_to, NULL, jsonb_build_object('factId', fact_id, 'archive', true)
        FROM naive_versions WHERE recorded_to IS NOT NULL AND next_from IS DISTINCT FROM recorded_to`);
  await pool.query('DROP TABLE naive_versions');
  await pool.query(`CREATE INDEX relationships_valid ON ${NAIVE_SCHEMA}.relationships (valid_from, valid_until)`);
  await pool.query(`CREATE INDEX relationships_recorded ON ${NAIVE_SCHEMA}.relationships (recorded_at)`);
  // "Current" edges of an entity: the partial index such designs keep for valid_until IS NULL.
  await pool.query(`CREATE INDEX relationships_current ON ${NAIVE_SCHEMA}.relationships (from_id, rel_type) WHERE valid_until IS NULL`);
  await pool.query(`ANALYZE ${NAIVE_SCHEMA}.relationships`);
  const { rows } = await pool.query<{ rows: string; bytes: string }>(
    `SELECT count(*) AS rows, pg_total_relation_size('${NAIVE_SCHEMA}.relationships') AS bytes FROM ${NAIVE_SCHEMA}.relationships`,
  );
  return { rows: Number(rows[0]!.rows), bytes: Number(rows[0]!.bytes), seconds: (performance.now() - t0) / 1000 };
}

/** A fact as both sides report it: enough to tell two answers apart. */
export interface ComparableFact {
  factId: string;
  src: string;
  rel: string;
  validFrom: string;
  validTo: string | null;
  recordedFrom: string;
}

/** The cut in plain SQL: record end = recorded_at of the invalidating row; `validAt` null = any validity. */
export async function naiveCut(pool: Pool, memoryId: string, src: string, validAt: string | null, recordedAt: string): Promise<ComparableFact[]> {
  const params: unknown[] = [`${memoryId}/${src}`, recordedAt];
  const valid = validAt === null ? '' : `AND r.valid_from <= $3 AND (r.valid_until IS NULL OR r.valid_until > $3)`;
  if (validAt !== null) params.push(validAt);
  const { rows } = await pool.query<{ fact_id: string; rel_type: string; valid_from: Date; valid_until: Date | null; recorded_at: Date }>(
    `SELECT r.properties->>'factId' AS fact_id, r.rel_type, r.valid_from, r.valid_until, r.recorded_at
       FROM ${NAIVE_SCHEMA}.relationships r
       LEFT JOIN ${NAIVE_SCHEMA}.relationships inv ON inv.id = r.invalidated_by
      WHERE r.from_id = $1 AND r.recorded_at <= $2 AND (inv.id IS NULL OR inv.recorded_at > $2)
        AND NOT r.properties ? 'archive' ${valid}`,
    params,
  );
  return rows.map((row) => ({
    factId: row.fact_id,
    src,
    rel: row.rel_type,
    validFrom: row.valid_from.toISOString(),
    validTo: row.valid_until?.toISOString() ?? null,
    recordedFrom: row.recorded_at.toISOString(),
  }));
}

export function sameFacts(a: readonly ComparableFact[], b: readonly ComparableFact[]): boolean {
  const key = (f: ComparableFact) => [f.factId, f.src, f.rel, f.validFrom, f.validTo, f.recordedFrom].join('|');
  const left = a.map(key).sort();
  const right = b.map(key).sort();
  return left.length === right.length && left.every((k, i) => k === right[i]);
}
