import { type KeyObject, createSecretKey } from 'node:crypto';
import type pg from 'pg';
import { keySetOfSeeds, newKeys } from './content-keys';
import { unwrapKey } from './key-wrap';
import {
  KEY_BYTES,
  type KeyRef,
  type KeySet,
  type NewKeySet,
  type SubjectErasure,
  type SubjectKeyStore,
  type SubjectKind,
  type Transaction,
  checkKeyRef,
  keyRefString,
} from './subject-key-store';

// The append runs this under its stream's lock with the revision checked, so no record in the log
// names this key set yet: a row already there is a leftover of a deleted stream of the same memory.
const WRITE_KEY_SET = `
  INSERT INTO mt_content_keys (memory_id, key_set, seeds, subjects, guards) VALUES ($1, $2, $3, $4, $5)
  ON CONFLICT (memory_id, key_set)
  DO UPDATE SET seeds = excluded.seeds, subjects = excluded.subjects, guards = excluded.guards, created_at = excluded.created_at`;

const SELECT_KEY_SETS = `SELECT key_set, seeds FROM mt_content_keys WHERE memory_id = $1 AND key_set = ANY($2::bigint[])`;

// A key of the first format is withheld when a later generation of its subject is destroyed.
const SELECT_LEGACY_KEYS = `
  SELECT k.subject_kind, k.subject_id, k.generation, k.wrapped
  FROM unnest($2::text[], $3::text[], $4::integer[]) AS r(kind, id, generation)
  JOIN mt_subject_keys k ON k.memory_id = $1 AND k.subject_kind = r.kind AND k.subject_id = r.id AND k.generation = r.generation
  WHERE NOT EXISTS (
    SELECT 1 FROM mt_subject_keys d
    WHERE d.memory_id = $1 AND d.subject_kind = r.kind AND d.subject_id = r.id AND d.generation > r.generation AND d.wrapped IS NULL
  )`;

const ZERO_SEED = `decode(repeat('00', ${KEY_BYTES}), 'hex')`;
const SEED_AT_S = `substring(k.seeds FROM s * ${KEY_BYTES} + 1 FOR ${KEY_BYTES})`;

/**
 * Destroys, in one statement (so a crash leaves all of it or none), for each erasure not done yet
 * (no tombstone at its generation or a later one; a done one costs a read):
 * - the subject's keys of the first format up to its generation (earlier ones nulled, a tombstone at it);
 * - in every key set of the memory, the keys listed under the subject's generations up to it
 *   (their seeds zeroed), found by reading the memory's key sets: an erasure is rare, a key per
 *   subject indexed would cost every append.
 * The erasures hold one generation per subject: one statement must not modify a row twice.
 */
const DESTROY = `
  WITH fresh AS MATERIALIZED (
    SELECT e.kind, e.id, e.generation
    FROM unnest($2::text[], $3::text[], $4::integer[]) AS e(kind, id, generation)
    WHERE NOT EXISTS (
      SELECT 1 FROM mt_subject_keys d
      WHERE d.memory_id = $1 AND d.subject_kind = e.kind AND d.subject_id = e.id AND d.generation >= e.generation AND d.wrapped IS NULL
    )
  ), earlier AS (
    UPDATE mt_subject_keys k SET wrapped = NULL, destroyed_at = now()
    FROM fresh f
    WHERE k.memory_id = $1 AND k.subject_kind = f.kind AND k.subject_id = f.id AND k.generation < f.generation AND k.destroyed_at IS NULL
  ), tombstones AS (
    INSERT INTO mt_subject_keys (memory_id, subject_kind, subject_id, generation, wrapped, destroyed_at)
    SELECT $1, f.kind, f.id, f.generation, NULL, now() FROM fresh f
    ON CONFLICT (memory_id, subject_kind, subject_id, generation) DO UPDATE SET wrapped = NULL, destroyed_at = excluded.destroyed_at
  ), wanted AS MATERIALIZED (
    SELECT f.kind || ':' || g.generation || ':' || f.id AS subject FROM fresh f CROSS JOIN LATERAL generate_series(0, f.generation) AS g(generation)
  ), hit AS (
    SELECT k.key_set, array_agg(DISTINCT u.slot) AS slots
    FROM mt_content_keys k CROSS JOIN LATERAL unnest(k.subjects, k.guards) AS u(subject, slot)
    WHERE k.memory_id = $1 AND EXISTS (SELECT 1 FROM wanted) AND u.subject IN (SELECT w.subject FROM wanted w)
    GROUP BY k.key_set
  )
  UPDATE mt_content_keys k
  SET seeds = (
    SELECT string_agg(CASE WHEN s = ANY(hit.slots) THEN ${ZERO_SEED} ELSE ${SEED_AT_S} END, ''::bytea ORDER BY s)
    FROM generate_series(0, length(k.seeds) / ${KEY_BYTES} - 1) AS s
  )
  FROM hit
  WHERE k.memory_id = $1 AND k.key_set = hit.key_set`;

interface LegacyKeyRow {
  subject_kind: SubjectKind;
  subject_id: string;
  generation: number;
  wrapped: Buffer | null;
}

/** Subject keys in PostgreSQL (tables mt_content_keys and mt_subject_keys, see subjectKeyMigrations), made under the master key. */
export class PostgresSubjectKeyStore implements SubjectKeyStore {
  // A key object once: node then skips importing the raw key on every cipher.
  private readonly masterKey: KeyObject;

  constructor(
    private readonly pool: Pick<pg.Pool, 'query'>,
    masterKey: Buffer,
  ) {
    if (masterKey.length !== KEY_BYTES)
      throw new RangeError(`PostgresSubjectKeyStore: the master key is ${KEY_BYTES} bytes, got ${masterKey.length}`);
    this.masterKey = createSecretKey(masterKey);
  }

  newKeys(count: number): { keys: Buffer; seeds: Buffer } {
    return newKeys(this.masterKey, count);
  }

  async writeKeySet(memoryId: string, keySet: NewKeySet, tx: Transaction): Promise<void> {
    await tx.query(WRITE_KEY_SET, [memoryId, keySet.id, keySet.seeds, keySet.subjects, keySet.guards]);
  }

  async keySets(memoryId: string, ids: readonly number[]): Promise<Map<number, KeySet>> {
    const found = new Map<number, KeySet>();
    if (ids.length === 0) return found;
    const { rows } = await this.pool.query<{ key_set: string | number; seeds: Buffer }>(SELECT_KEY_SETS, [memoryId, ids]);
    for (const row of rows) found.set(Number(row.key_set), keySetOfSeeds(this.masterKey, row.seeds));
    return found;
  }

  async legacyKeys(memoryId: string, refs: readonly KeyRef[]): Promise<Map<string, Buffer | null>> {
    const found = new Map<string, Buffer | null>();
    for (const ref of refs) {
      checkKeyRef(ref);
      found.set(keyRefString(ref), null);
    }
    if (found.size === 0) return found;
    const { rows } = await this.pool.query<LegacyKeyRow>(SELECT_LEGACY_KEYS, [
      memoryId,
      refs.map((r) => r.kind),
      refs.map((r) => r.id),
      refs.map((r) => r.generation),
    ]);
    for (const row of rows) {
      const refString = keyRefString({ kind: row.subject_kind, id: row.subject_id, generation: row.generation });
      found.set(refString, row.wrapped === null ? null : unwrapKey(this.masterKey, memoryId, refString, row.wrapped));
    }
    return found;
  }

  async destroy(memoryId: string, erasures: readonly SubjectErasure[]): Promise<void> {
    const latest = latestPerSubject(erasures);
    if (latest.length === 0) return;
    await this.pool.query(DESTROY, [
      memoryId,
      latest.map((e) => e.subject.kind),
      latest.map((e) => e.subject.id),
      latest.map((e) => e.throughGeneration),
    ]);
  }

  confirmDestroyed(memoryId: string, erasures: readonly SubjectErasure[]): Promise<void> {
    return this.destroy(memoryId, erasures);
  }
}

/**
 * Inside the transaction that deletes a memory: its keys and tombstones go with its log, so a crash
 * cannot leave a tombstone that a later memory of the same id would take for an erasure done.
 */
export async function deleteMemoryKeysIn(tx: Transaction, memoryId: string): Promise<void> {
  await tx.query('WITH sets AS (DELETE FROM mt_content_keys WHERE memory_id = $1) DELETE FROM mt_subject_keys WHERE memory_id = $1', [memoryId]);
}

/** One erasure per subject, its latest generation: an erasure through a generation covers every earlier one. */
export function latestPerSubject(erasures: readonly SubjectErasure[]): SubjectErasure[] {
  const latest = new Map<string, SubjectErasure>();
  for (const erasure of erasures) {
    checkKeyRef({ ...erasure.subject, generation: erasure.throughGeneration });
    const key = `${erasure.subject.kind}:${erasure.subject.id}`;
    const seen = latest.get(key);
    if (!seen || seen.throughGeneration < erasure.throughGeneration) latest.set(key, erasure);
  }
  return [...latest.values()];
}
