import { dot, textHash } from '@memotrace/search-index';

/**
 * The vectors of one memory corpus's versions for one model, by version index, found once
 * in the vector store and copied into one contiguous matrix (row i = version i, zeros where
 * none is known), so that a kNN over a cut is one SIMD scan of it (`innerProductTop`) with
 * no per-search hashing or lookups.
 */
export class CorpusVectors {
  private readonly hashes: (string | undefined)[] = [];
  private data = new Float32Array(0);
  private present = new Uint8Array(0);
  /** The model's dimension: that of the first vector set; a vector of another is not comparable and not kept. */
  dimension = 0;
  /** One past the highest row set. */
  rows = 0;
  /** The largest norm of a row. */
  maxNorm = 0;

  /** The text hash of version `i`, whose own text is `text`. */
  hash(i: number, text: string): string {
    return (this.hashes[i] ??= textHash(text));
  }

  has(i: number): boolean {
    return this.present[i] === 1;
  }

  vector(i: number): Float32Array | undefined {
    return this.present[i] === 1 ? this.data.subarray(i * this.dimension, (i + 1) * this.dimension) : undefined;
  }

  /**
   * Keeps the vectors of these versions of a corpus of `size` versions (the matrix grows to
   * `size` rows at once, not by doubling: each copy would be external garbage the GC reacts
   * to). Returns how many were kept.
   */
  setAll(entries: Iterable<readonly [number, Float32Array]>, size: number): number {
    let kept = 0;
    for (const [i, vector] of entries) {
      if (this.dimension === 0) this.dimension = vector.length;
      if (vector.length !== this.dimension) continue;
      this.reserve(Math.max(size, i + 1));
      this.data.set(vector, i * this.dimension);
      this.present[i] = 1;
      this.rows = Math.max(this.rows, i + 1);
      this.maxNorm = Math.max(this.maxNorm, Math.sqrt(dot(vector, vector)));
      kept += 1;
    }
    return kept;
  }

  /** Rows `0 .. rows - 1`, row-major. */
  get matrix(): Float32Array {
    return this.data.subarray(0, this.rows * this.dimension);
  }

  private reserve(rows: number): void {
    if (this.present.length >= rows) return;
    const capacity = Math.max(rows, Math.ceil(1.25 * this.present.length));
    const data = new Float32Array(capacity * this.dimension);
    data.set(this.data);
    const present = new Uint8Array(capacity);
    present.set(this.present);
    this.data = data;
    this.present = present;
  }
}
