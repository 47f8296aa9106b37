import type { Cut } from '@memotrace/domain';
import type { VectorPage } from '@memotrace/search-index';
import type { Candidate } from './items';

/** An item found by a recall, with its score. */
export interface RecallHit {
  key: string;
  score: number;
}

/**
 * The items of one memory visible in one cut (SPEC §3.2), as search sees them: the
 * candidates, BM25 over them (the cut is the corpus: document frequencies and the
 * average length are the cut's own), and the item graph expansion walks. Nothing
 * outside the cut is an item, a hit or a neighbour. Keys are `itemKey(kind, id)`.
 */
export interface CutItems {
  readonly memoryId: string;
  readonly cut: Cut;
  /** Number of visible items. */
  readonly size: number;
  has(key: string): boolean;
  candidate(key: string): Candidate | undefined;
  /**
   * BM25 hits (score > 0), best first, ties in answer order (kind, then id), at most
   * `limit`. `timedOnly`: the corpus is only the items with a time (itemInterval).
   */
  bm25(query: string, options: { limit: number; timedOnly?: boolean }): RecallHit[];
  /** Key and text of every visible item. */
  texts(): Iterable<{ key: string; text: string }>;
  /**
   * Cosine kNN over the visible items' vectors, where the cut can do it faster than scoring
   * `texts()` one by one (`nearestByTexts`), with the same answer: hits with cosine >=
   * `minCosine`, best first, ties in answer order (kind, then id), at most `limit`.
   */
  nearest?(store: VectorStore, query: Float32Array, options: NearestOptions): Promise<NearestResult>;
  /** Neighbours by link kind (evidence, evidenced-by, neighbouring turns, same entity), each list capped at `fanOut`. */
  neighbours(key: string, fanOut: number): string[];
}

/** Item vectors by text hash (the search projection's store), for one model. */
export interface VectorStore {
  readonly model: string;
  vectors(hashes: readonly string[]): Promise<Map<string, Float32Array>>;
  /** The vectors of a memory's texts stored after log position `after` (`vectorsSince`): a corpus keeps up by these deltas. */
  since?(memoryId: string, after: number, limit: number): Promise<VectorPage>;
}

/** Vector hits, and how many visible items had no vector (ranked by BM25 alone). */
export interface NearestResult {
  hits: RecallHit[];
  unembedded: number;
}

export interface NearestOptions {
  limit: number;
  minCosine: number;
}

/** Most BM25 hits a search ranks (as the OpenSearch backend asks of its index). */
export const BM25_HITS = 1000;
