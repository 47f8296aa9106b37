import { type OpenSearchItemIndex, openSearchUnavailable } from '@memotrace/search-opensearch';
import { BM25_HITS } from './cut-items';
import {
  DEFAULT_EMBEDDED_RECALL,
  type EmbeddedRecallOptions,
  type VectorSource,
  embedAhead,
  nearestInProcess,
  nearestOfTexts,
  queryVectorAfterWrites,
} from './embedded-recall';
import type { ProjectionProgress } from '../consistency';
import { type IndexProgress, type RecallBackend, itemKey, progressReached } from './recall-backend';

/**
 * How far OpenSearch's own projector has got (only looked at: until it has a read's position the
 * k-NN is answered in process, the same ranking without waiting for OpenSearch's indexing), and the
 * search projection's vectors (a read-your-writes search waits for them, bounded).
 */
export interface OpenSearchProgress {
  openSearch?: ProjectionProgress;
  vectors?: IndexProgress;
}

type ItemIndex = Pick<OpenSearchItemIndex, 'knn'>;

/**
 * The OpenSearch recall backend: one ranking with the embedded engine, OpenSearch supplying
 * candidates. BM25 is the engine's, over the cut (its document frequencies and lengths are the
 * cut's own, which an index of every version cannot give); OpenSearch holds the vectors and
 * answers the k-NN with the cut as its filter, and each candidate is scored again by its text's
 * vector, as the embedded backend scores it, so the same items rank the same. Until OpenSearch has
 * every record up to the read's position, and while its node is away, the k-NN is the embedded one:
 * an item its projector has not reached yet is still found, a search right after a write does not
 * wait for OpenSearch's indexing, and search answers whenever the database does. Documents are
 * versions (`fact:<id>#<position>`); candidates are items (`itemKey(kind, id)`) of the cut.
 */
export function openSearchRecall(
  index: ItemIndex,
  source: VectorSource | undefined,
  options: EmbeddedRecallOptions = DEFAULT_EMBEDDED_RECALL,
  progress: OpenSearchProgress = {},
): RecallBackend {
  return {
    prepare: embedAhead(source),
    async recall(request) {
      const { query, items } = request;
      const bm25Hits = () => items.bm25(query, { limit: BM25_HITS });
      if (source === undefined || items.size === 0) return { bm25: bm25Hits(), vector: [] };
      const [queryVector, indexed] = await Promise.all([
        queryVectorAfterWrites(source, request, progress.vectors),
        progressReached(progress.openSearch, request.position),
      ]);
      if (queryVector === null) return { bm25: bm25Hits(), vector: [], unembedded: items.size }; // the model is not there yet: BM25 ranks all
      const vectorFloor = source.cosineFloor ?? 0;
      // BM25 runs here while OpenSearch answers the k-NN.
      const knn = indexed ? index.knn(items.memoryId, Array.from(queryVector), items.cut, options.vectorHits).catch(unlessAway) : null;
      const bm25 = bm25Hits();
      const found = await knn;
      if (found === null) {
        // OpenSearch's answers cannot count the items without a vector: an in-process k-NN tells
        // only of those it met, so that a search answers in one shape whichever way its k-NN went.
        const { hits, unembedded } = await nearestInProcess(items, source, queryVector, options);
        return { bm25, vector: hits, vectorFloor, ...(unembedded > 0 ? { unembedded } : {}) };
      }
      const candidates = new Map<string, string>();
      for (const { kind, itemId } of found) {
        const key = itemKey({ kind, id: itemId });
        const text = candidates.has(key) ? undefined : items.candidate(key)?.text;
        if (text !== undefined) candidates.set(key, text);
      }
      const { hits } = await nearestOfTexts(
        [...candidates].map(([key, text]) => ({ key, text })),
        source,
        queryVector,
        { limit: options.vectorHits, minCosine: options.minCosine },
      );
      return { bm25, vector: hits, vectorFloor };
    },
  };
}

/** Null for an OpenSearch node that is away (the k-NN is then answered in process); any other error stands. */
function unlessAway(error: unknown): null {
  if (openSearchUnavailable(error)) return null;
  throw error;
}
