import { ItemTiers, PostgresMemoryQueries, PostgresSearchFeed } from '@memotrace/read-models';
import { type EmbeddingProvider, VectorLookup } from '@memotrace/search-index';
import { ExtractionJobs, TOKENS } from '@memotrace/runtime';
import { ContainerModule, type ServiceIdentifier } from 'inversify';
import { ConsistencyGate, type ProjectionProgress } from './consistency';
import type { QueryRouteDeps } from './http-routes';
import { MemoryLogCache, ReplayMemoryQueries } from './replay-queries';
import type { OpenSearchItemIndex } from '@memotrace/search-opensearch';
import { SearchCorpora, embeddedRecall, openSearchRecall, projectedVectors, warmSearch } from './search';

export const PROJECTION_PROGRESS: ServiceIdentifier<ProjectionProgress> = Symbol.for('memotrace.projectionProgress');
/** Optional: the embeddings provider (composition root); without it search is BM25 only. */
export const EMBEDDING_PROVIDER: ServiceIdentifier<EmbeddingProvider> = Symbol.for('memotrace.embeddingProvider');
/** Optional: the OpenSearch index (OPENSEARCH_URL); with it, OpenSearch supplies the k-NN candidates that search ranks. */
export const OPENSEARCH_INDEX: ServiceIdentifier<OpenSearchItemIndex> = Symbol.for('memotrace.openSearchIndex');
/** Optional: how far the search projection's vectors have got (its projector); a search with minPosition waits for them, bounded. */
export const SEARCH_INDEX_PROGRESS: ServiceIdentifier<ProjectionProgress> = Symbol.for('memotrace.searchIndexProgress');
/** Optional: how far the OpenSearch index has got (its projector); until it has a read's position, k-NN is answered in process. */
export const OPENSEARCH_PROGRESS: ServiceIdentifier<ProjectionProgress> = Symbol.for('memotrace.openSearchProgress');
export const QUERY_ROUTE_DEPS: ServiceIdentifier<QueryRouteDeps> = Symbol.for('memotrace.queryRouteDeps');

/** Binds the read side; PROJECTION_PROGRESS comes from the composition root (in-process projector or polling). */
export const queryModule = new ContainerModule(({ bind }) => {
  bind(QUERY_ROUTE_DEPS)
    .toDynamicValue((ctx) => {
      const store = ctx.get(TOKENS.store);
      const logs = new MemoryLogCache(store);
      const replay = new ReplayMemoryQueries(logs);
      const gate = new ConsistencyGate(new PostgresMemoryQueries(ctx.get(TOKENS.readPool)), replay, store, ctx.get(PROJECTION_PROGRESS), {
        minPositionTimeoutMs: 10_000,
        ownWritesWaitMs: 5_000,
      });
      const clock = ctx.get(TOKENS.clock);
      const provider: EmbeddingProvider | undefined = ctx.get<EmbeddingProvider>(EMBEDDING_PROVIDER, { optional: true });
      const warn = (message: string) => console.warn(`memotrace search: ${message}`);
      // The search corpora keep their versions' vectors themselves (CorpusVectors): the lookup's
      // own cache only serves texts they do not hold (facts rendered at a cut), so it stays small.
      const lookup = provider ? new VectorLookup(ctx.get(TOKENS.readPool), { maxEntries: 20_000 }) : undefined;
      const vectors = provider && lookup ? projectedVectors(provider, lookup, warn) : undefined;
      vectors?.warm(); // the model loads while the service starts: the first searches rank by BM25 until it has
      setImmediate(warmSearch);
      const openSearch = ctx.get<OpenSearchItemIndex>(OPENSEARCH_INDEX, { optional: true });
      const config = ctx.get(TOKENS.config);
      const indexProgress = (id: ServiceIdentifier<ProjectionProgress>) => {
        const progress = ctx.get<ProjectionProgress>(id, { optional: true });
        return progress ? { progress, waitMs: config.searchIndexWaitMs } : undefined;
      };
      const recall = openSearch
        ? openSearchRecall(openSearch, vectors, undefined, {
            openSearch: ctx.get<ProjectionProgress>(OPENSEARCH_PROGRESS, { optional: true }),
            vectors: indexProgress(SEARCH_INDEX_PROGRESS),
          })
        : vectors
          ? embeddedRecall(vectors, undefined, indexProgress(SEARCH_INDEX_PROGRESS))
          : undefined;
      const corpora = new SearchCorpora(new PostgresSearchFeed(ctx.get(TOKENS.readPool)), { maxVersions: config.searchCacheVersions });
      // A deleted memory: nothing this process holds of it may answer again (vectors of unknown texts: all of them).
      const forgetMemory = (memoryId: string, vectorHashes?: readonly string[]) => {
        logs.forget(memoryId);
        replay.forget(memoryId);
        corpora.forget(memoryId);
        lookup?.forget(vectorHashes);
      };
      // The async extraction jobs, as the replica (if any) has them.
      const jobs = new ExtractionJobs(ctx.get(TOKENS.readPool));
      const extractionOf = (memoryId: string, mentionId: string) => jobs.statusOf(memoryId, mentionId);
      const tiers = new ItemTiers(ctx.get(TOKENS.pool));
      return { gate, store, now: () => clock.now(), corpora, recall, forgetMemory, extractionOf, tiers };
    })
    .inSingletonScope();
});
