import { dot, textHash } from '@memotrace/search-index';
import type { VectorStore } from './cut-items';

/**
 * Most vectors a search reads in line: a larger delta (a memory not searched before, or the search
 * projection embedding a backlog) is read in the background, and its items are found by BM25 meanwhile.
 */
export const INLINE_VECTOR_PAGE = 250;
const BACKGROUND_VECTOR_PAGE = 5_000;

/**
 * The vectors of one memory corpus for one model. Each distinct text's vector is kept once,
 * as a row of one contiguous matrix (a fact's versions share their text, so the matrix has a
 * row per text, not per version), so that a kNN over a cut is one SIMD scan of it
 * (`innerProductTop`) whose rows are then read back as the versions that have that text.
 *
 * A version is hashed once, when the corpus first has it (`register`); one whose text has no
 * vector yet waits under its hash, and takes its row when the vector arrives. A search thus
 * only tests a version's row, never hashes or looks up per search.
 */
export class CorpusVectors {
  private data = new Float32Array(0);
  /** The text row of each registered version, -1 while its text has none. */
  private rowOfVersion = new Int32Array(0);
  /** The versions with each row's text, in registration order. */
  private readonly versionsOfRow: number[][] = [];
  private readonly rowOfHash = new Map<string, number>();
  /** Versions waiting for their text's vector, by text hash. */
  private readonly waiting = new Map<string, number[]>();
  /** Vectors read for texts no registered version has yet. */
  private readonly unclaimed = new Map<string, Float32Array>();
  /** Versions 0 .. registered - 1 are hashed and placed. */
  private registered = 0;
  /** The model's dimension: that of the first vector kept; a vector of another is not comparable and not kept. */
  dimension = 0;
  /** Text rows held. */
  rows = 0;
  /** The largest norm of a row. */
  maxNorm = 0;
  /** The log position up to which the store's vectors of this memory have been read (`VectorStore.since`). */
  private readThrough = 0;
  private reading: Promise<void> | null = null;

  /**
   * Places the versions the corpus gained since the last call (`texts(i)` is version i's own
   * text, null when it has none: erased): each takes its text's row, or waits for it.
   */
  register(size: number, texts: (i: number) => string | null): void {
    if (size <= this.registered) return;
    this.reserveVersions(size);
    for (let i = this.registered; i < size; i++) {
      const text = texts(i);
      if (text === null) {
        this.rowOfVersion[i] = -1;
        continue;
      }
      const hash = textHash(text);
      const row = this.rowOfHash.get(hash);
      if (row !== undefined) this.place(i, row);
      else {
        const vector = this.unclaimed.get(hash);
        this.rowOfVersion[i] = -1;
        const list = this.waiting.get(hash);
        if (list === undefined) this.waiting.set(hash, [i]);
        else list.push(i);
        if (vector !== undefined) {
          this.unclaimed.delete(hash);
          this.keep(hash, vector);
        }
      }
    }
    this.registered = size;
  }

  /**
   * Reads what the store projected for the memory since the last read: in line when it is a
   * small delta, else in the background (the search goes on with the vectors at hand and ranks
   * the rest by BM25). Searches never wait for a read another search started.
   *
   * `erasedAt`: the log position of the memory's latest erasure the corpus knows of. A store not
   * yet projected past it may still hold vectors of the texts it erased: of such a page only the
   * vectors versions wait for are kept (an erased version waits for none).
   */
  async catchUp(store: VectorStore, memoryId: string, erasedAt = 0): Promise<void> {
    if (store.since === undefined || this.reading !== null) return;
    const read = async (limit: number) => {
      const page = await store.since!(memoryId, this.readThrough, limit);
      this.keepAll(page.vectors, page.through >= erasedAt);
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

  /** Hashes of the texts whose versions wait for a vector (asked of a store that reads no deltas). */
  waitingHashes(): string[] {
    return [...this.waiting.keys()];
  }

  /**
   * Keeps these vectors by text hash: waiting versions take them, others are kept until a version
   * has the text (unless `unclaimed` is false: they may be of erased texts).
   */
  keepAll(vectors: Iterable<readonly [string, Float32Array]>, unclaimed = true): void {
    for (const [hash, vector] of vectors) {
      if (this.rowOfHash.has(hash)) continue;
      if (this.waiting.has(hash)) this.keep(hash, vector);
      else if (unclaimed) this.unclaimed.set(hash, vector);
    }
  }

  /** The row of a text with a known vector, by its hash. */
  rowOfText(hash: string): number | undefined {
    return this.rowOfHash.get(hash);
  }

  /** The text row of version `i`, -1 when its text has no vector yet (or it is not registered). */
  rowOf(i: number): number {
    return i < this.registered ? this.rowOfVersion[i]! : -1;
  }

  /** The versions whose text is row `row`'s. */
  versionsOf(row: number): readonly number[] {
    return this.versionsOfRow[row] ?? [];
  }

  row(row: number): Float32Array {
    return this.data.subarray(row * this.dimension, (row + 1) * this.dimension);
  }

  /** Version `i`'s vector, if its text has one. */
  vector(i: number): Float32Array | undefined {
    const row = this.rowOf(i);
    return row < 0 ? undefined : this.row(row);
  }

  /** Rows `0 .. rows - 1`, row-major. */
  get matrix(): Float32Array {
    return this.data.subarray(0, this.rows * this.dimension);
  }

  /** A new row for the text `hash`, taken by the versions waiting for it. */
  private keep(hash: string, vector: Float32Array): void {
    if (this.dimension === 0) this.dimension = vector.length;
    if (vector.length !== this.dimension) return;
    const row = this.rows;
    this.reserveRows(row + 1);
    this.data.set(vector, row * this.dimension);
    this.rows = row + 1;
    this.rowOfHash.set(hash, row);
    this.versionsOfRow.push([]);
    this.maxNorm = Math.max(this.maxNorm, Math.sqrt(dot(vector, vector)));
    for (const i of this.waiting.get(hash) ?? []) this.place(i, row);
    this.waiting.delete(hash);
  }

  private place(i: number, row: number): void {
    this.rowOfVersion[i] = row;
    this.versionsOfRow[row]!.push(i);
  }

  private reserveVersions(size: number): void {
    if (this.rowOfVersion.length >= size) return;
    const grown = new Int32Array(Math.max(size, Math.ceil(1.25 * this.rowOfVersion.length)));
    grown.set(this.rowOfVersion);
    this.rowOfVersion = grown;
  }

  /** Grows by a quarter at least: each copy is external garbage the GC reacts to. */
  private reserveRows(rows: number): void {
    if (this.data.length >= rows * this.dimension) return;
    const data = new Float32Array(Math.max(rows, Math.ceil(1.25 * (this.data.length / this.dimension)), 1024) * this.dimension);
    data.set(this.data);
    this.data = data;
  }
}
