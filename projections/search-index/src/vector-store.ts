import type { Pool, PoolClient } from 'pg';

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

export async function storeVectors(db: Queryable, model: string, entries: readonly { hash: string; vector: Float32Array }[]): Promise<void> {
  if (entries.length === 0) return;
  const values = entries.map((_, i) => `($1, $${2 * i + 2}, $${2 * i + 3}::real[])`).join(', ');
  const params = entries.flatMap((e) => [e.hash, Array.from(e.vector)]);
  await db.query(`INSERT INTO si_vectors (model, text_hash, vector) VALUES ${values} ON CONFLICT (model, text_hash) DO NOTHING`, [model, ...params]);
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
      const { rows } = await this.db.query<{ text_hash: string; vector: number[] }>(
        'SELECT text_hash, vector FROM si_vectors WHERE model = $1 AND text_hash = ANY($2)',
        [model, wanted],
      );
      for (const row of rows) {
        const vector = Float32Array.from(row.vector.map(Number));
        found.set(row.text_hash, vector);
        this.remember(`${model}\u0000${row.text_hash}`, vector);
      }
      for (const hash of wanted) if (!found.has(hash)) this.misses.set(`${model}\u0000${hash}`, now);
      if (this.misses.size > 100_000) this.misses.clear();
    }
    return found;
  }

  private remember(key: string, vector: Float32Array): void {
    if (this.cache.size >= (this.options.maxEntries ?? 500_000)) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(key, vector);
  }
}
