import { memoize } from '@memotrace/domain';
import { dot, textHash } from '@memotrace/search-index';
import { BM25_HITS } from './cut-items';
import type { RecallBackend, RecallHit } from './recall-backend';

/** Where vectors come from: the query embedded at search time, items by text hash (the search projection). */
export interface VectorSource {
  readonly model: string;
  /** See `EmbeddingProvider.cosineFloor`. */
  readonly cosineFloor?: number;
  /** Null when no vector can be had now (model not loaded): search goes on with BM25. */
  queryVector(query: string): Promise<Float32Array | null>;
  vectors(hashes: readonly string[]): Promise<Map<string, Float32Array>>;
}

export interface EmbeddedRecallOptions {
  /** Most vector hits kept (best cosine first). */
  vectorHits: number;
  /** Cosine below this is no hit: an unrelated query finds nothing. */
  minCosine: number;
}

const hashOf = memoize(textHash);

export const DEFAULT_EMBEDDED_RECALL: EmbeddedRecallOptions = { vectorHits: 100, minCosine: 0.2 };

/**
 * The embedded recall backend: BM25 over the cut's items (the cut is the corpus)
 * and cosine kNN over the vectors of those same items. An item whose vector is not
 * projected yet is still found by BM25.
 */
export function embeddedRecall(source: VectorSource | undefined, options: EmbeddedRecallOptions = DEFAULT_EMBEDDED_RECALL): RecallBackend {
  return {
    async recall({ query, items }) {
      const bm25 = items.bm25(query, { limit: BM25_HITS });
      if (source === undefined) return { bm25, vector: [] };
      const queryVector = await source.queryVector(query);
      if (queryVector === null) return { bm25, vector: [] };
      const texts = [...items.texts()].map(({ key, text }) => ({ key, hash: hashOf(text) }));
      const vectors = await source.vectors(texts.map((t) => t.hash));
      const vector: RecallHit[] = [];
      for (const { key, hash } of texts) {
        const v = vectors.get(hash);
        if (v === undefined) continue;
        const score = dot(queryVector, v);
        if (score >= options.minCosine) vector.push({ key, score });
      }
      vector.sort((a, b) => b.score - a.score);
      return { bm25, vector: vector.slice(0, options.vectorHits), vectorFloor: source.cosineFloor ?? 0 };
    },
  };
}
