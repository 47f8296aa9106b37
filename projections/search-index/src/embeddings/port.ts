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
  /** Drops whatever it keeps of these texts (by `textHash`): their content was erased (SPEC §5.2). */
  forget?(hashes: readonly string[]): void;
}

/**
 * Texts are embedded by their first 2,000 characters (~500 tokens), enough for a dialog turn
 * (LoCoMo's longest is 454). A 64 KiB mention would otherwise hold USE lite's worker for
 * long (its cost grows with the text), or exceed an endpoint's input limit: the batch would
 * fail, and the projector retries a failed batch until it succeeds.
 */
export const EMBEDDED_CHARS = 2000;

/** The part of `text` that is embedded (never ending inside a surrogate pair). */
export function embeddedPart(text: string): string {
  if (text.length <= EMBEDDED_CHARS) return text;
  const last = text.charCodeAt(EMBEDDED_CHARS - 1);
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? EMBEDDED_CHARS - 1 : EMBEDDED_CHARS);
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

/** Four running sums: independent additions pipeline, faster than one sum. */
export function dot(a: Float32Array, b: Float32Array): number {
  const n = Math.min(a.length, b.length);
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  let i = 0;
  for (; i + 3 < n; i += 4) {
    s0 += a[i]! * b[i]!;
    s1 += a[i + 1]! * b[i + 1]!;
    s2 += a[i + 2]! * b[i + 2]!;
    s3 += a[i + 3]! * b[i + 3]!;
  }
  for (; i < n; i++) s0 += a[i]! * b[i]!;
  return s0 + s1 + (s2 + s3);
}

/** Runs `embed` over `texts` in slices of `size`, concatenating the answers. */
export async function inBatches(
  texts: readonly string[],
  size: number,
  embed: (batch: readonly string[]) => Promise<Float32Array[]>,
): Promise<Float32Array[]> {
  const out: Float32Array[] = [];
  for (let i = 0; i < texts.length; i += size) out.push(...(await embed(texts.slice(i, i + size))));
  return out;
}
