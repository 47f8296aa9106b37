import type { EventStore } from '@memotrace/event-store';
import { readModelsProjection, startProjector } from '@memotrace/read-models';
import { type EmbeddingProvider, searchIndexProjection } from '@memotrace/search-index';
import { type OpenSearchItemIndex, assertIndexableVectors, openSearchProjection } from '@memotrace/search-opensearch';
import type { Pool } from 'pg';

export type RunningProjector = Awaited<ReturnType<typeof startProjector>>;

/** Starts the read-model projector: from its checkpoint, catch-up then live. */
export function runReadModelProjector(store: EventStore, pool: Pool, onError: (error: Error) => void): Promise<RunningProjector> {
  return startProjector({ store, pool, projections: [readModelsProjection], onError });
}

/**
 * Starts the search-index projector (vectors of every searchable text): a projector
 * of its own, with its own checkpoint, so slow embedding never holds back the read
 * models. Small batches keep each transaction short.
 */
export function runSearchIndexProjector(store: EventStore, pool: Pool, provider: EmbeddingProvider, onError: (error: Error) => void): Promise<RunningProjector> {
  return startProjector({ store, pool, projections: [searchIndexProjection(provider)], batchSize: 64, retryMs: 5000, onError });
}

/**
 * Starts the OpenSearch projector (OPENSEARCH_URL): the log into the OpenSearch index,
 * with its own checkpoint row, embedding with the same provider as the embedded search
 * index (none: BM25 only in OpenSearch; one of another dimension: refused). Creates the index
 * if it is missing.
 */
export async function runOpenSearchProjector(store: EventStore, pool: Pool, index: OpenSearchItemIndex, provider: EmbeddingProvider | undefined, onError: (error: Error) => void): Promise<RunningProjector> {
  assertIndexableVectors(provider);
  await index.ensureIndex();
  const embedder = provider ? { embed: async (texts: readonly string[]) => (await provider.embed(texts)).map((v) => Array.from(v)) } : undefined;
  return startProjector({ store, pool, projections: [openSearchProjection(index, embedder ? { embedder } : {})], batchSize: 64, retryMs: 5000, onError });
}
