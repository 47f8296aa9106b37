import { textHash } from '@memotrace/search-index';

/**
 * The vectors of one memory corpus's versions for one model, by version index, found once
 * in the vector store: a kNN over a cut then scans the visible versions with no per-search
 * hashing or lookups. The vectors are the store's own arrays (content-addressed, immutable),
 * shared, not copied.
 */
export class CorpusVectors {
  private readonly hashes: (string | undefined)[] = [];
  private readonly vectors: (Float32Array | undefined)[] = [];

  /** The text hash of version `i`, whose own text is `text`. */
  hash(i: number, text: string): string {
    return (this.hashes[i] ??= textHash(text));
  }

  vector(i: number): Float32Array | undefined {
    return this.vectors[i];
  }

  set(i: number, vector: Float32Array): void {
    this.vectors[i] = vector;
  }
}
