import type { Pool, PoolClient } from 'pg';
import { SEARCH_INDEX_PROJECTION } from './projection-name';

type Queryable = Pick<Pool | PoolClient, 'query'>;

/** Which of `hashes` already have a vector for `model`. */
export async function storedHashes(db: Queryable, model: string, hashes: readonly string[]): Promise<Set<string>> {
  if (hashes.length === 0) return new Set();
  const { rows } = await db.query<{ text_hash: string }>('SELECT text_hash FROM si_vectors WHERE model = $1 AND text_hash = ANY($2)', [
    model,
    hashes,
  ]);
  return new Set(rows.map((r) => r.text_hash));
}

/**
 * Stores vectors as `real[]`, each sent in the array's binary form: as text, every float would be
 * written out in decimal on the service's event loop, which the search projection's backlog of
 * vectors keeps busy enough to hold up searches.
 */
export async function storeVectors(db: Queryable, model: string, entries: readonly { hash: string; vector: Float32Array }[]): Promise<void> {
  if (entries.length === 0) return;
  const values = entries.map((_, i) => `($1, $${2 * i + 2}, $${2 * i + 3}::real[])`).join(', ');
  const params = entries.flatMap((e) => [e.hash, arraySendOfFloats(e.vector)]);
  await db.query(`INSERT INTO si_vectors (model, text_hash, vector) VALUES ${values} ON CONFLICT (model, text_hash) DO NOTHING`, [model, ...params]);
}

/** Vectors of one memory's texts, by text hash, projected in `(after, through]`; `complete` when nothing later is stored yet. */
export interface VectorPage {
  vectors: Map<string, Float32Array>;
  through: number;
  complete: boolean;
}

/**
 * The vectors the search projection stored for a memory's items after log position `after`,
 * oldest first, at most about `limit`: what a search corpus lacks, read as a delta. Bounded by
 * the projection's checkpoint, which commits with its rows, so nothing at or below `through`
 * can still arrive. A page ends on a whole position (a record's items come together).
 */
export async function vectorsSince(db: Queryable, model: string, memoryId: string, after: number, limit: number): Promise<VectorPage> {
  // One row at least (the checkpoint), also when nothing new is stored: the usual answer costs one statement.
  const { rows } = await db.query<{ text_hash: string | null; vector: Buffer | null; position: string | null; through: string }>(
    `SELECT d.text_hash, d.vector, d.position, c.position AS through
       FROM rm_checkpoints c
       LEFT JOIN LATERAL (
         SELECT i.text_hash, array_send(v.vector) AS vector, i.position
           FROM si_items i JOIN si_vectors v ON v.model = $2 AND v.text_hash = i.text_hash
          WHERE i.memory_id = $1 AND i.position > $3 AND i.position <= c.position
          ORDER BY i.position LIMIT $5) d ON true
      WHERE c.projection = $4`,
    [memoryId, model, after, SEARCH_INDEX_PROJECTION, limit + 1],
  );
  const checkpoint = Number(rows[0]?.through ?? 0);
  const found = rows.filter((row): row is { text_hash: string; vector: Buffer; position: string; through: string } => row.text_hash !== null);
  const complete = found.length <= limit;
  const last = complete ? checkpoint : Number(found[found.length - 1]!.position);
  // A full page may hold part of its last position: that position is read again by the next page.
  const kept = complete ? found : found.filter((row) => Number(row.position) < last);
  if (kept.length === 0 && !complete) return vectorsSince(db, model, memoryId, after, limit * 2);
  return {
    vectors: new Map(kept.map((row) => [row.text_hash, floatsOfArraySend(row.vector)])),
    through: complete ? checkpoint : last - 1,
    complete,
  };
}

const FLOAT4_OID = 700;

/**
 * A one-dimensional `real[]` in PostgreSQL's binary form (what `array_send` gives and `array_recv`
 * reads; pg sends a Buffer parameter in binary): a 20-byte header (dimensions, null flag, element
 * type, length, lower bound), then each float as a 4-byte length and its big-endian bytes.
 */
function arraySendOfFloats(vector: Float32Array): Buffer {
  const bytes = Buffer.allocUnsafe(20 + 8 * vector.length);
  bytes.writeInt32BE(1, 0);
  bytes.writeInt32BE(0, 4);
  bytes.writeInt32BE(FLOAT4_OID, 8);
  bytes.writeInt32BE(vector.length, 12);
  bytes.writeInt32BE(1, 16);
  for (let i = 0, at = 20; i < vector.length; i++, at += 8) {
    bytes.writeInt32BE(4, at);
    bytes.writeFloatBE(vector[i]!, at + 4);
  }
  return bytes;
}

/** A one-dimensional `real[]` in PostgreSQL's binary form (`arraySendOfFloats`). */
function floatsOfArraySend(bytes: Buffer): Float32Array {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (view.getInt32(0) !== 1) throw new Error(`a stored vector has ${view.getInt32(0)} dimensions, expected 1`);
  const length = view.getInt32(12);
  const out = new Float32Array(length);
  for (let i = 0, at = 24; i < length; i++, at += 8) out[i] = view.getFloat32(at);
  return out;
}

/**
 * Vectors by text hash, read-through: immutable once stored (content-addressed), so
 * a vector read once is kept in process memory (bounded) and later searches of the
 * same memory cost no database round trip for it.
 */
export class VectorLookup {
  private readonly cache = new Map<string, Float32Array>();
  /** Hashes known to have no vector yet; re-checked after `missTtlMs`. */
  private readonly misses = new Map<string, number>();

  constructor(
    private readonly db: Queryable,
    private readonly options: { maxEntries?: number; missTtlMs?: number } = {},
  ) {}

  async vectors(model: string, hashes: readonly string[]): Promise<Map<string, Float32Array>> {
    const found = new Map<string, Float32Array>();
    const wanted: string[] = [];
    const now = Date.now();
    const ttl = this.options.missTtlMs ?? 1000;
    for (const hash of new Set(hashes)) {
      const hit = this.cache.get(`${model}\u0000${hash}`);
      if (hit !== undefined) found.set(hash, hit);
      else if ((this.misses.get(`${model}\u0000${hash}`) ?? 0) < now - ttl) wanted.push(hash);
    }
    if (wanted.length > 0) {
      const { rows } = await this.db.query<{ text_hash: string; vector: Buffer }>(
        'SELECT text_hash, array_send(vector) AS vector FROM si_vectors WHERE model = $1 AND text_hash = ANY($2)',
        [model, wanted],
      );
      for (const row of rows) {
        const vector = floatsOfArraySend(row.vector);
        found.set(row.text_hash, vector);
        this.remember(`${model}\u0000${row.text_hash}`, vector);
      }
      for (const hash of wanted) if (!found.has(hash)) this.misses.set(`${model}\u0000${hash}`, now);
      if (this.misses.size > 100_000) this.misses.clear();
    }
    return found;
  }

  since(model: string, memoryId: string, after: number, limit: number): Promise<VectorPage> {
    return vectorsSince(this.db, model, memoryId, after, limit);
  }

  /**
   * Drops the vectors kept of these text hashes (of every model), or all of them: an erased
   * text's vector is derived from it (SPEC §5.2). A later read finds only what is still stored.
   */
  forget(hashes?: readonly string[]): void {
    if (hashes === undefined) {
      this.cache.clear();
      this.misses.clear();
      return;
    }
    const gone = new Set(hashes);
    for (const key of this.cache.keys()) if (gone.has(key.slice(key.indexOf('\u0000') + 1))) this.cache.delete(key);
  }

  private remember(key: string, vector: Float32Array): void {
    if (this.cache.size >= (this.options.maxEntries ?? 500_000)) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(key, vector);
  }
}
