import { dot, textHash } from '@memotrace/search-index';
import type { VectorStore } from './cut-items';

/** Most vectors a search reads in line: a larger delta (a memory not searched before) is read in the background. */
export const INLINE_VECTOR_PAGE = 2_000;
const BACKGROUND_VECTOR_PAGE = 5_000;

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
  /** The log position up to which the store's vectors of this memory have been read (`VectorStore.since`). */
  private readThrough = 0;
  private reading: Promise<void> | null = null;
  /** A row holding each text's vector: a later version with the same text takes it from there. */
  private readonly rowOfHash = new Map<string, number>();
  /** Vectors read for texts no row has claimed yet. */
  private readonly unclaimed = new Map<string, Float32Array>();

  /**
   * Reads what the store projected for the memory since the last read: in line when it is a
   * small delta, else in the background (the search goes on with the vectors at hand and ranks
   * the rest by BM25). Searches never wait for a read another search started.
   */
  async catchUp(store: VectorStore, memoryId: string): Promise<void> {
    if (store.since === undefined || this.reading !== null) return;
    const read = async (limit: number) => {
      const page = await store.since!(memoryId, this.readThrough, limit);
      for (const [hash, vector] of page.vectors) if (!this.rowOfHash.has(hash)) this.unclaimed.set(hash, vector);
      this.readThrough = page.through;
      return page.complete;
    };
    this.reading = Promise.resolve(); // taken: a concurrent search goes on without waiting
    let next: 'done' | 'more' | 'failed';
    try {
      next = (await read(INLINE_VECTOR_PAGE)) ? 'done' : 'more';
    } catch {
      next = 'failed'; // the store is unreachable now: this search ranks by BM25, the next one reads again
    }
    this.reading = next === 'more' ? this.readRest(read) : null;
  }

  private async readRest(read: (limit: number) => Promise<boolean>): Promise<void> {
    try {
      while (!(await read(BACKGROUND_VECTOR_PAGE)));
    } catch {
      // As above: the next search resumes from where this read stopped.
    } finally {
      this.reading = null;
    }
  }

  /** Gives version `i` (text `text`) of a corpus of `size` versions the vector of its text if one is known; whether it has one. */
  claim(i: number, text: string, size: number): boolean {
    if (this.present[i] === 1) return true;
    const hash = this.hash(i, text);
    const row = this.rowOfHash.get(hash);
    const vector = row === undefined ? this.unclaimed.get(hash) : this.vector(row);
    if (vector === undefined) return false;
    this.setAll([[i, vector]], size);
    this.unclaimed.delete(hash);
    return this.present[i] === 1;
  }

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
      const hash = this.hashes[i];
      if (hash !== undefined && !this.rowOfHash.has(hash)) this.rowOfHash.set(hash, i);
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
