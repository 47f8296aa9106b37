import { type KeyObject, createSecretKey, randomBytes } from 'node:crypto';
import type pg from 'pg';
import { unwrapKey, wrapKey } from './key-wrap';
import { KEY_BYTES, type KeyRef, type KeysOptions, type SubjectKeyStore, type SubjectKind, checkKeyRef, keyRefString } from './subject-key-store';

// Inserts the refs' fresh keys, except where the key exists (a concurrent creator's key wins) or the
// subject has a tombstone at this generation or a later one: an erased generation never comes back.
// Rows go in key order: two creators inserting overlapping batches in different orders would deadlock.
const INSERT_KEYS = `
  INSERT INTO mt_subject_keys (memory_id, subject_kind, subject_id, generation, wrapped)
  SELECT $1, r.kind, r.id, r.generation, r.wrapped
  FROM unnest($2::text[], $3::text[], $4::integer[], $5::bytea[]) AS r(kind, id, generation, wrapped)
  WHERE NOT EXISTS (
    SELECT 1 FROM mt_subject_keys d
    WHERE d.memory_id = $1 AND d.subject_kind = r.kind AND d.subject_id = r.id AND d.generation >= r.generation AND d.wrapped IS NULL
  )
  ORDER BY r.kind, r.id, r.generation
  ON CONFLICT DO NOTHING
  RETURNING subject_kind, subject_id, generation`;

// A key is withheld when a later generation of its subject is destroyed: destroy covers every
// generation up to its tombstone, including a key row that a racing create slipped in below it.
const SELECT_KEYS = `
  SELECT k.subject_kind, k.subject_id, k.generation, k.wrapped
  FROM unnest($2::text[], $3::text[], $4::integer[]) AS r(kind, id, generation)
  JOIN mt_subject_keys k ON k.memory_id = $1 AND k.subject_kind = r.kind AND k.subject_id = r.id AND k.generation = r.generation
  WHERE NOT EXISTS (
    SELECT 1 FROM mt_subject_keys d
    WHERE d.memory_id = $1 AND d.subject_kind = r.kind AND d.subject_id = r.id AND d.generation > r.generation AND d.wrapped IS NULL
  )`;

// The earlier generations and the tombstone are disjoint rows: one statement must not modify a row twice.
// coalesce keeps the time of the first destruction on a repeat.
const DESTROY = `
  WITH earlier AS (
    UPDATE mt_subject_keys SET wrapped = NULL, destroyed_at = now()
    WHERE memory_id = $1 AND subject_kind = $2 AND subject_id = $3 AND generation < $4 AND destroyed_at IS NULL
  )
  INSERT INTO mt_subject_keys (memory_id, subject_kind, subject_id, generation, wrapped, destroyed_at)
  VALUES ($1, $2, $3, $4, NULL, now())
  ON CONFLICT (memory_id, subject_kind, subject_id, generation)
  DO UPDATE SET wrapped = NULL, destroyed_at = coalesce(mt_subject_keys.destroyed_at, excluded.destroyed_at)`;

interface KeyRow {
  subject_kind: SubjectKind;
  subject_id: string;
  generation: number;
  wrapped: Buffer | null;
}

/** Subject keys in PostgreSQL (table mt_subject_keys, see subjectKeyMigrations), each wrapped under the master key. */
export class PostgresSubjectKeyStore implements SubjectKeyStore {
  // A key object once: node then skips importing the raw key on every wrap and unwrap.
  private readonly masterKey: KeyObject;

  constructor(
    private readonly pool: Pick<pg.Pool, 'query'>,
    masterKey: Buffer,
  ) {
    if (masterKey.length !== KEY_BYTES)
      throw new RangeError(`PostgresSubjectKeyStore: the master key is ${KEY_BYTES} bytes, got ${masterKey.length}`);
    this.masterKey = createSecretKey(masterKey);
  }

  async keys(memoryId: string, refs: readonly KeyRef[], options: KeysOptions): Promise<Map<string, Buffer | null>> {
    const unique = new Map<string, KeyRef>();
    for (const ref of refs) {
      checkKeyRef(ref);
      unique.set(keyRefString(ref), ref);
    }
    const found = new Map<string, Buffer | null>();
    if (unique.size === 0) return found;
    const kinds: string[] = [];
    const ids: string[] = [];
    const generations: number[] = [];
    for (const ref of unique.values()) {
      kinds.push(ref.kind);
      ids.push(ref.id);
      generations.push(ref.generation);
    }

    // Keys this call inserts are known without reading them back (and unwrapping them); only the
    // others (existing, a concurrent creator's, or tombstoned) are read.
    const pending = new Map(unique);
    if (options.create) {
      const material = randomBytes(KEY_BYTES * unique.size);
      const fresh = new Map<string, Buffer>();
      const wrapped: Buffer[] = [];
      let offset = 0;
      for (const refString of unique.keys()) {
        const key = Buffer.from(material.subarray(offset, offset + KEY_BYTES));
        fresh.set(refString, key);
        wrapped.push(wrapKey(this.masterKey, memoryId, refString, key));
        offset += KEY_BYTES;
      }
      material.fill(0);
      const insertion = this.pool.query<Omit<KeyRow, 'wrapped'>>(INSERT_KEYS, [memoryId, kinds, ids, generations, wrapped]);
      if (options.onProposed) {
        // The caller works under the fresh keys while the server inserts them. pg hands a query to a
        // pooled connection on the next tick: let it go out first. A failure is thrown by the await below.
        insertion.catch(() => undefined);
        await new Promise<void>((resolve) => setImmediate(resolve));
        options.onProposed(fresh);
      }
      const inserted = await insertion;
      for (const row of inserted.rows) {
        const refString = keyRefString({ kind: row.subject_kind, id: row.subject_id, generation: row.generation });
        found.set(refString, fresh.get(refString)!);
        pending.delete(refString);
      }
      if (pending.size === 0) return found;
    }

    const rest = [...pending.values()];
    const { rows } = await this.pool.query<KeyRow>(SELECT_KEYS, [
      memoryId,
      rest.map((r) => r.kind),
      rest.map((r) => r.id),
      rest.map((r) => r.generation),
    ]);
    for (const refString of pending.keys()) found.set(refString, null);
    for (const row of rows) {
      const refString = keyRefString({ kind: row.subject_kind, id: row.subject_id, generation: row.generation });
      found.set(refString, row.wrapped === null ? null : unwrapKey(this.masterKey, memoryId, refString, row.wrapped));
    }
    return found;
  }

  async destroy(memoryId: string, subject: { kind: SubjectKind; id: string }, throughGeneration: number): Promise<void> {
    checkKeyRef({ ...subject, generation: throughGeneration });
    await this.pool.query(DESTROY, [memoryId, subject.kind, subject.id, throughGeneration]);
  }

  async dropMemory(memoryId: string): Promise<void> {
    await this.pool.query('DELETE FROM mt_subject_keys WHERE memory_id = $1', [memoryId]);
  }
}
