import type { LogStore } from '@memotrace/log-store';
import { readModelsProjection } from '@memotrace/read-models';
import { startProjector } from '@memotrace/projection';
import { type EmbeddingProvider, searchIndexProjection, textHash } from '@memotrace/search-index';
import { type OpenSearchItemIndex, VECTOR_DIMENSION, openSearchProjection } from '@memotrace/search-opensearch';
import type { Pool } from 'pg';

export type RunningProjector = Awaited<ReturnType<typeof startProjector>>;

/** Starts the read-model projector: from its checkpoint, catch-up then live. */
export function runReadModelProjector(store: LogStore, pool: Pool, onError: (error: Error) => void): Promise<RunningProjector> {
  return startProjector({ store, pool, projections: [readModelsProjection], onError });
}

/**
 * Starts the search-index projector (vectors of every searchable text): a projector
 * of its own, with its own checkpoint, so slow embedding never holds back the read
 * models. Small batches keep each transaction short.
 */
export function runSearchIndexProjector(
  store: LogStore,
  pool: Pool,
  provider: EmbeddingProvider,
  onError: (error: Error) => void,
): Promise<RunningProjector> {
  return startProjector({ store, pool, projections: [searchIndexProjection(provider)], batchSize: 64, retryMs: 5000, onError });
}

/**
 * Starts the OpenSearch projector (OPENSEARCH_URL): the log into the OpenSearch index,
 * with its own checkpoint row, embedding with the same provider as the embedded search
 * index (none: BM25 only in OpenSearch). Creates the index, for the model's vector length, if
 * it is missing; a model that does not state its length (an endpoint without
 * `EMBEDDINGS_DIMENSION`) embeds one text to learn it.
 */
export async function runOpenSearchProjector(
  store: LogStore,
  pool: Pool,
  index: OpenSearchItemIndex,
  provider: EmbeddingProvider | undefined,
  onError: (error: Error) => void,
): Promise<RunningProjector> {
  const dimension = provider ? await vectorLength(provider) : VECTOR_DIMENSION;
  await index.ensureIndex(dimension);
  // The embedded search index shares the provider's cache but may render a fact's text otherwise (ids where the read
  // models have no name yet): the texts this projection erases are forgotten too, or their vectors stay cached.
  const embedder = provider
    ? {
        embed: async (texts: readonly string[]) => (await provider.embed(texts)).map((v) => Array.from(v)),
        forget: (texts: readonly string[]) => provider.forget?.(texts.map(textHash)),
      }
    : undefined;
  return startProjector({ store, pool, projections: [openSearchProjection(index, { embedder, dimension })], batchSize: 64, retryMs: 5000, onError });
}

async function vectorLength(provider: EmbeddingProvider): Promise<number> {
  if (provider.dimension !== undefined) return provider.dimension;
  try {
    const [vector] = await provider.embed(['vector length probe']);
    return vector!.length;
  } catch (error) {
    throw new Error(
      `the OpenSearch index needs the length of ${provider.model}'s vectors ` +
        `and embedding a probe failed (${(error as Error).message}): set EMBEDDINGS_DIMENSION`,
    );
  }
}
