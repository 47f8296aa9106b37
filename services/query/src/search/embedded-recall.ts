import { memoize } from '@memotrace/domain';
import { dot, textHash } from '@memotrace/search-index';
import { compareItemKeys } from './corpus';
import { BM25_HITS, type CutItems, type NearestOptions, type NearestResult, type VectorStore } from './cut-items';
import { type IndexProgress, type RecallBackend, type RecallHit, type RecallRequest, indexReached } from './recall-backend';

/** Where vectors come from: the query embedded at search time, items by text hash (the search projection). */
export interface VectorSource extends VectorStore {
  /** See `EmbeddingProvider.cosineFloor`. */
  readonly cosineFloor?: number;
  /**
   * Null when no vector can be had now (model not loaded, and not within `waitMs`, default 0): search
   * goes on with BM25. Never rejects.
   */
  queryVector(query: string, waitMs?: number): Promise<Float32Array | null>;
}

export interface EmbeddedRecallOptions {
  /** Most vector hits kept (best cosine first). */
  vectorHits: number;
  /** Cosine below this is no hit: an unrelated query finds nothing. */
  minCosine: number;
}

const hashOf = memoize(textHash);

export const DEFAULT_EMBEDDED_RECALL: EmbeddedRecallOptions = { vectorHits: 200, minCosine: 0.2 };

/** `prepare` of a backend that embeds the query with `source`: starts the embedding, which its `recall` then joins (projectedVectors). */
export function embedAhead(source: Pick<VectorSource, 'queryVector'> | undefined): (query: string) => void {
  return (query) => void source?.queryVector(query);
}

/**
 * The embedded recall backend: BM25 over the cut's items (the cut is the corpus)
 * and cosine kNN over the vectors of those same items. An item whose vector is not
 * projected yet is still found by BM25.
 */
export function embeddedRecall(
  source: VectorSource | undefined,
  options: EmbeddedRecallOptions = DEFAULT_EMBEDDED_RECALL,
  vectorIndex?: IndexProgress,
): RecallBackend {
  return {
    prepare: embedAhead(source),
    async recall(request) {
      const { query, items } = request;
      const bm25 = items.bm25(query, { limit: BM25_HITS });
      if (source === undefined) return { bm25, vector: [] };
      const queryVector = await queryVectorAfterWrites(source, request, vectorIndex);
      if (queryVector === null) return { bm25, vector: [], unembedded: items.size }; // the model is not there yet: BM25 ranks all
      const { hits, unembedded } = await nearestInProcess(items, source, queryVector, options);
      return { bm25, vector: hits, vectorFloor: source.cosineFloor ?? 0, unembedded };
    },
  };
}

/**
 * The query's vector. A read-your-writes search also waits, bounded and at the same time, for the
 * vectors of what it wrote and for a model still loading; any other search ranks with what there is.
 */
export async function queryVectorAfterWrites(
  source: Pick<VectorSource, 'queryVector'>,
  request: RecallRequest,
  vectorIndex: IndexProgress | undefined,
): Promise<Float32Array | null> {
  if (!request.readYourWrites) return source.queryVector(request.query);
  const [queryVector] = await Promise.all([source.queryVector(request.query, vectorIndex?.waitMs ?? 0), indexReached(vectorIndex, request)]);
  return queryVector;
}

/** The cut's k-NN scored in process, over every visible item's vector (the cut's own scan when it has one). */
export function nearestInProcess(
  items: CutItems,
  source: VectorStore,
  queryVector: Float32Array,
  options: EmbeddedRecallOptions,
): Promise<NearestResult> {
  const nearest = { limit: options.vectorHits, minCosine: options.minCosine };
  return items.nearest ? items.nearest(source, queryVector, nearest) : nearestByTexts(items, source, queryVector, nearest);
}

/** Cosine kNN by scoring every visible item's text's vector: what `CutItems.nearest` must equal. */
export function nearestByTexts(items: CutItems, store: VectorStore, query: Float32Array, options: NearestOptions): Promise<NearestResult> {
  return nearestOfTexts(items.texts(), store, query, options);
}

/** Cosine kNN among the given items, each scored by its text's vector; an item whose text has none is counted, not a hit. */
export async function nearestOfTexts(
  items: Iterable<{ key: string; text: string }>,
  store: VectorStore,
  query: Float32Array,
  options: NearestOptions,
): Promise<NearestResult> {
  const texts = [...items].map(({ key, text }) => ({ key, hash: hashOf(text) }));
  const vectors = await store.vectors(texts.map((t) => t.hash));
  const hits: RecallHit[] = [];
  let unembedded = 0;
  for (const { key, hash } of texts) {
    const v = vectors.get(hash);
    if (v === undefined) {
      unembedded += 1;
      continue;
    }
    const score = dot(query, v);
    if (score >= options.minCosine) hits.push({ key, score });
  }
  return { hits: hits.sort((a, b) => b.score - a.score || compareItemKeys(a.key, b.key)).slice(0, options.limit), unembedded };
}
