import type { EmbeddingProvider, VectorLookup } from '@memotrace/search-index';
import type { VectorSource } from './embedded-recall';

const RETRY_AFTER_FAILURE_MS = 60_000;

/**
 * Vectors of the search projection (by text hash) and the query's own vector,
 * embedded at search time (the provider caches it). A search does not wait for the model
 * to load (a read-your-writes search waits as long as it may wait for the index): until `warm`
 * has had one vector back, searches go on with BM25 only. If the
 * model cannot be loaded or the endpoint fails, search goes on with BM25 only: one
 * warning, and no new attempt for a minute. `forget` drops the item vectors the lookup keeps
 * (after an erasure: SearchCorpora's `onErasure`).
 */
export function projectedVectors(
  provider: EmbeddingProvider,
  lookup: VectorLookup,
  warn: (message: string) => void,
): VectorSource & { warm(): void; forget(): void } {
  let failedAt = Number.NEGATIVE_INFINITY;
  let ready = false;
  let warming: Promise<void> | null = null;
  // A query being embedded (started by the route before the cut is ready): its search joins it.
  const inFlight = new Map<string, Promise<Float32Array | null>>();
  const embed = async (query: string): Promise<Float32Array | null> => {
    if (Date.now() - failedAt < RETRY_AFTER_FAILURE_MS) return null;
    try {
      const [vector] = await provider.embed([query]);
      return vector ?? null;
    } catch (error) {
      failedAt = Date.now();
      warn(`embeddings unavailable (${(error as Error).message}); searching with BM25 only`);
      return null;
    }
  };
  const embedOnce = (query: string) => {
    let vector = inFlight.get(query);
    if (vector === undefined) {
      vector = embed(query).finally(() => inFlight.delete(query));
      inFlight.set(query, vector);
    }
    return vector;
  };
  const warm = () => {
    warming ??= embed(WARM_UP_TEXT).then((vector) => {
      ready = vector !== null;
      warming = null;
    });
  };
  return {
    model: provider.model,
    cosineFloor: provider.cosineFloor,
    warm,
    queryVector(query, waitMs = 0) {
      if (!ready) {
        warm();
        if (waitMs <= 0 || warming === null) return Promise.resolve(null);
        // A read-your-writes search waits, bounded, for the model as it waits for the index.
        let timer: NodeJS.Timeout | undefined;
        const late = new Promise<null>((resolve) => (timer = setTimeout(resolve, waitMs, null)));
        return Promise.race([warming.then(() => (ready ? embedOnce(query) : null)), late]).finally(() => clearTimeout(timer));
      }
      return embedOnce(query);
    },
    vectors: (hashes) => lookup.vectors(provider.model, hashes),
    forget: () => lookup.forget(),
    since: (memoryId, after, limit) => lookup.since(provider.model, memoryId, after, limit),
  };
}

/** What `warm` embeds to load the model. */
const WARM_UP_TEXT = 'warm up';
