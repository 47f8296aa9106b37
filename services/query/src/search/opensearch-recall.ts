import type { OpenSearchItemIndex, ScoredItem } from '@memotrace/search-opensearch';
import { BM25_HITS } from './cut-items';
import { type VectorSource, embedAhead } from './embedded-recall';
import { type RecallBackend, type RecallHit, itemKey } from './recall-backend';

export interface OpenSearchRecallOptions {
  /** Most BM25 hits asked of OpenSearch (its result window is 10 000). */
  bm25Hits: number;
  /** Most k-NN hits asked of OpenSearch. */
  vectorHits: number;
  /** Cosine below this is no hit, as in the embedded backend. */
  minCosine: number;
}

export const DEFAULT_OPENSEARCH_RECALL: OpenSearchRecallOptions = { bm25Hits: BM25_HITS, vectorHits: 200, minCosine: 0.2 };

type ItemIndex = Pick<OpenSearchItemIndex, 'bm25' | 'knn'>;

/**
 * The OpenSearch recall backend: BM25 and k-NN with the cut as a filter inside the
 * query, then only the hits naming an item of the cut are kept, because the embedded cut
 * (the read models) stays the authority on visibility; OpenSearch only ranks. Its
 * documents are versions (`fact:<id>#<position>`), the ranking's keys are items
 * (`itemKey(kind, id)`), so hits map by kind + itemId; of two versions the better
 * score counts. An item the index does not hold yet (its projection lags) is not a hit.
 */
export function openSearchRecall(
  index: ItemIndex,
  source: Pick<VectorSource, 'queryVector' | 'cosineFloor'> | undefined,
  options: OpenSearchRecallOptions = DEFAULT_OPENSEARCH_RECALL,
): RecallBackend {
  return {
    prepare: embedAhead(source),
    async recall({ query, items }) {
      const { memoryId, cut } = items;
      const toHits = (found: readonly ScoredItem[], score: (s: number) => number): RecallHit[] => {
        const best = new Map<string, number>();
        for (const item of found) {
          const key = itemKey({ kind: item.kind, id: item.itemId });
          if (!items.has(key)) continue;
          const s = score(item.score);
          if (s > (best.get(key) ?? Number.NEGATIVE_INFINITY)) best.set(key, s);
        }
        return [...best].map(([key, s]) => ({ key, score: s })).sort((a, b) => b.score - a.score);
      };
      if (items.size === 0) return { bm25: [], vector: [] };
      const bm25Search = index.bm25(memoryId, query, cut, Math.min(options.bm25Hits, items.size));
      const queryVector = source ? await source.queryVector(query) : null;
      const knnSearch = queryVector ? index.knn(memoryId, Array.from(queryVector), cut, options.vectorHits) : Promise.resolve([]);
      const [bm25Items, knnItems] = await Promise.all([bm25Search, knnSearch]);
      // OpenSearch's cosine score is (1 + cos) / 2; the ranking and the threshold work on cos.
      const vector = toHits(knnItems, (s) => 2 * s - 1).filter((h) => h.score >= options.minCosine);
      return { bm25: toHits(bm25Items, (s) => s).filter((h) => h.score > 0), vector, vectorFloor: source?.cosineFloor ?? 0 };
    },
  };
}
