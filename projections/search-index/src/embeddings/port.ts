/**
 * The embeddings port: texts in, one unit-length vector per text out, same order.
 * `model` names the vector space (a cache key: vectors of two models never mix).
 */
export interface EmbeddingProvider {
  readonly model: string;
  /**
   * The cosine this model typically gives two unrelated texts (default 0): search fusion
   * measures similarity from there, as some models put every pair in a narrow band far above 0.
   */
  readonly cosineFloor?: number;
  /** The vectors' length when known before the first call (an index must be made for it). */
  readonly dimension?: number;
  embed(texts: readonly string[]): Promise<Float32Array[]>;
}

/** Scales to unit length (cosine = dot product); a zero vector stays zero. */
export function normalize(vector: ArrayLike<number>): Float32Array {
  let norm = 0;
  for (let i = 0; i < vector.length; i++) norm += vector[i]! * vector[i]!;
  const scale = norm > 0 ? 1 / Math.sqrt(norm) : 0;
  const out = new Float32Array(vector.length);
  for (let i = 0; i < vector.length; i++) out[i] = vector[i]! * scale;
  return out;
}

export function dot(a: Float32Array, b: Float32Array): number {
  const n = Math.min(a.length, b.length);
  let sum = 0;
  for (let i = 0; i < n; i++) sum += a[i]! * b[i]!;
  return sum;
}

/** Runs `embed` over `texts` in slices of `size`, concatenating the answers. */
export async function inBatches(texts: readonly string[], size: number, embed: (batch: readonly string[]) => Promise<Float32Array[]>): Promise<Float32Array[]> {
  const out: Float32Array[] = [];
  for (let i = 0; i < texts.length; i += size) out.push(...(await embed(texts.slice(i, i + size))));
  return out;
}
