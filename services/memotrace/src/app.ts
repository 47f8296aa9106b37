import 'reflect-metadata';
import {
  COMMAND_HANDLER,
  type ExtractionProcessor,
  MemoryDeletion,
  type RetentionSweeps,
  SEALER,
  commandModule,
  registerCommandRoutes,
  registerMemoryDeletionRoute,
  registerTurnRoutes,
  startExtractionProcessor,
  startEvolution,
  startRetentionSweeps,
  turnIntake,
} from '@memotrace/command-service';
import { consoleBundle, registerConsole } from '@memotrace/console';
import { type Extractor, extractorFromEnv } from '@memotrace/extraction';
import { buildOpenApiDocument } from '@memotrace/contracts';
import { AccessControl, checkBindSafety, createHttpServer } from '@memotrace/http-kit';
import { type RunningKafkaBridge, startKafkaBridge } from '@memotrace/kafka-service';
import { registerMcpRoute } from '@memotrace/mcp-service';
import type { Sealer } from '@memotrace/memory-log';
import {
  RebuildJob,
  type RunningProjector,
  registerAdminRoutes,
  runOpenSearchProjector,
  runReadModelProjector,
  runSearchIndexProjector,
} from '@memotrace/projector-service';
import {
  EMBEDDING_PROVIDER,
  OPENSEARCH_INDEX,
  OPENSEARCH_PROGRESS,
  PROJECTION_PROGRESS,
  type ProjectionProgress,
  QUERY_ROUTE_DEPS,
  SEARCH_INDEX_PROGRESS,
  queryModule,
  claimReader,
  registerQueryRoutes,
} from '@memotrace/query-service';
import { type EmbeddingProvider, USE_LITE_MODEL, embeddingsFromEnv } from '@memotrace/search-index';
import { OpenSearchItemIndex, itemIndexFor } from '@memotrace/search-opensearch';
import {
  type RuntimeConfig,
  TOKENS,
  backgroundErrors,
  serviceFault,
  databaseReadiness,
  infraModule,
  openDatabase,
  nameSimilarity,
  registerDeletionFence,
  watchMemoryDeletions,
} from '@memotrace/runtime';
import type { FastifyInstance } from 'fastify';
import { Container } from 'inversify';
import type { Logger } from 'pino';

export interface RunningService {
  app: FastifyInstance;
  url: string;
  databaseUrl: string;
  /** The Kafka command consumer and event relay, when KAFKA_BROKERS is set. */
  kafka: RunningKafkaBridge | undefined;
  /** Relations' retentions, swept every RETENTION_SWEEP_MS (and on `sweep()`). */
  retention: RetentionSweeps;
  /** Derives from `async` turns: polls every EXTRACTION_POLL_MS, wakes on this process's async turns. */
  extraction: ExtractionProcessor;
  close(): Promise<void>;
}

/** Composition root of the all-in-one process: command, projector and query side by side. */
export interface StartOptions {
  /** The search embeddings provider; `null` for BM25-only search; default from the environment (EMBEDDINGS_*). */
  embeddings?: EmbeddingProvider | null;
  /** The OpenSearch index name when OPENSEARCH_URL is set (default `memotrace-items`; tests use their own). */
  openSearchIndex?: string;
  /** The turns' extractor; default from the environment (EXTRACTION_*). */
  extractor?: Extractor;
  /** How batches are sealed; default sealBatch under the database's key store. Only the sealing benchmark passes one (that seals nothing). */
  seal?: Sealer;
}

export async function startMemoTrace(config: RuntimeConfig, logger: Logger, options: StartOptions = {}): Promise<RunningService> {
  const accessMode = checkBindSafety(config.host, config.apiKeys); // before anything starts
  void consoleBundle(); // esbuild bundles the console while the database starts
  const database = await openDatabase(config, (m) => logger.info(m));
  const projector = await runReadModelProjector(database.store, database.pool, backgroundErrors(logger, 'projection failed', 'error'));
  const container = new Container();
  await container.load(infraModule(config, database), commandModule, queryModule);
  if (options.seal) container.bind(SEALER).toConstantValue(options.seal);
  container.bind(PROJECTION_PROGRESS).toConstantValue(progressOf(projector));
  // Search vectors: a projector of its own; search falls back to BM25 while the model is unavailable.
  // Queries embed their own text at the service's priority; the log's texts are embedded at idle priority.
  const embeddings = options.embeddings === undefined ? embeddingsFromEnv() : (options.embeddings ?? undefined);
  const indexEmbeddings = options.embeddings === undefined ? embeddingsFromEnv(process.env, 'index') : embeddings;
  if (embeddings) container.bind(EMBEDDING_PROVIDER).toConstantValue(embeddings);
  const searchIndex = indexEmbeddings
    ? await runSearchIndexProjector(
        database.store,
        database.pool,
        indexEmbeddings,
        backgroundErrors(logger, 'search index projection failed (search falls back to BM25)'),
      )
    : undefined;
  // OpenSearch (OPENSEARCH_URL): a projector of its own feeds the index; search asks it for k-NN candidates and ranks them.
  const openSearch = config.openSearchUrl
    ? new OpenSearchItemIndex({ url: config.openSearchUrl, index: options.openSearchIndex ?? itemIndexFor(embeddings?.model, USE_LITE_MODEL) })
    : undefined;
  if (openSearch) container.bind(OPENSEARCH_INDEX).toConstantValue(openSearch);
  const openSearchProjector = openSearch
    ? await runOpenSearchProjector(
        database.store,
        database.pool,
        openSearch,
        indexEmbeddings,
        backgroundErrors(logger, 'OpenSearch projection failed'),
      )
    : undefined;

  const access = new AccessControl(config.apiKeys);
  const { app, metrics } = createHttpServer({
    storageFault: serviceFault,
    logger,
    metrics: container.get(TOKENS.metrics),
    openApi: buildOpenApiDocument,
    readiness: [databaseReadiness(database.pool)],
    access,
  });
  registerCommandRoutes(app, container.get(COMMAND_HANDLER), metrics);
  // Near-duplicate entity names are also found by the search's embedding model, when there is one.
  const extractor = options.extractor ?? extractorFromEnv(process.env, embeddings ? nameSimilarity(embeddings) : {});
  const extraction = startExtractionProcessor({ pool: database.pool, handler: container.get(COMMAND_HANDLER), extractor, config, logger, metrics });
  registerTurnRoutes(app, turnIntake(container.get(COMMAND_HANDLER), config, extractor, extraction), metrics);
  metrics.trackExtractionBacklog(() => extraction.backlog());
  // The highest position, not the safe head: a long transaction holding the safe head back is lag too.
  metrics.trackProjectionLag('read-models', async () => (await database.store.highestPosition()) - projector.position());
  if (openSearchProjector)
    metrics.trackProjectionLag('search-opensearch', async () => (await database.store.highestPosition()) - openSearchProjector.position());
  if (searchIndex) container.bind(SEARCH_INDEX_PROGRESS).toConstantValue(progressOf(searchIndex));
  if (openSearchProjector) container.bind(OPENSEARCH_PROGRESS).toConstantValue(progressOf(openSearchProjector));
  const queries = container.get(QUERY_ROUTE_DEPS);
  // A check's text is read by the turns' extractor (SPEC 5.3).
  registerQueryRoutes(app, { ...queries, readClaims: claimReader(extractor) });
  // DELETE /v1/memories/{id}: the memory goes from the database, OpenSearch and this process's caches;
  // other processes (a command or query service beside this one) hear of it through the deletion watcher.
  const handler = container.get(COMMAND_HANDLER);
  const deletion = new MemoryDeletion({
    pool: database.pool,
    openSearch,
    keyStore: database.keyStore,
    handler,
    forgetCopies: (memoryId, { vectorHashes }) => queries.forgetMemory?.(memoryId, vectorHashes),
  });
  registerMemoryDeletionRoute(app, deletion);
  const deletions = await watchMemoryDeletions(database, {
    forget: (memoryId) => {
      void handler.forgetMemory(memoryId);
      queries.forgetMemory?.(memoryId);
    },
    onError: backgroundErrors(logger, 'memory deletion watcher'),
  });
  registerDeletionFence(app, deletions);
  const retention = startRetentionSweeps({
    store: database.store,
    handler,
    intervalMs: config.retentionSweepMs,
    logger,
  });
  const clock = container.get(TOKENS.clock);
  const consolidation = startEvolution(app, {
    handler,
    pool: database.pool,
    store: database.store,
    clock,
    intervalMs: config.consolidateIntervalMs,
    logger,
  });
  const rebuild = new RebuildJob(database.url, database.masterKey);
  registerAdminRoutes(app, rebuild);
  registerMcpRoute(app, access); // MCP over streamable HTTP at /mcp
  await registerConsole(app); // the web console at /console, reading through the API above
  // Kafka is optional: commands in and events out only when KAFKA_BROKERS is set.
  const kafka = config.kafka
    ? await startKafkaBridge({
        config: config.kafka,
        handler: container.get(COMMAND_HANDLER),
        deletions,
        access,
        // Kafka carries the log as stored: content published sealed is unreadable once its key is destroyed.
        store: database.sealedStore,
        pool: database.pool,
        logger,
        metrics,
      })
    : undefined;
  const url = await app.listen({ host: config.host, port: config.port });
  if (config.apiKeys.length > 0) logger.info(accessMode);
  else logger.warn(accessMode);
  return {
    app,
    url,
    databaseUrl: database.url,
    kafka,
    retention,
    extraction,
    async close() {
      await app.close();
      await extraction.stop();
      await retention.stop();
      await consolidation.stop();
      await deletions.stop();
      await kafka?.stop();
      await rebuild.settled();
      await searchIndex?.stop();
      await openSearchProjector?.stop();
      await openSearch?.close();
      await projector.stop();
      await database.close();
    },
  };
}

/** A projector of this process, as the query side waits for it. */
function progressOf(projector: RunningProjector): ProjectionProgress {
  return { waitFor: (position, timeoutMs) => projector.waitForPosition(position, timeoutMs) };
}
