import 'reflect-metadata';
import { buildOpenApiDocument } from '@memotrace/contracts';
import { AccessControl, checkBindSafety, createHttpServer } from '@memotrace/http-kit';
import {
  TOKENS,
  databaseReadiness,
  infraModule,
  openDatabase,
  readConfig,
  registerDeletionFence,
  runMain,
  serveUntilSignal,
  watchMemoryDeletions,
  backgroundErrors,
  serviceFault,
  nameSimilarity,
} from '@memotrace/runtime';
import { extractorFromEnv } from '@memotrace/extraction';
import { USE_LITE_MODEL, embeddingsFromEnv } from '@memotrace/search-index';
import { OpenSearchItemIndex, itemIndexFor } from '@memotrace/search-opensearch';
import { Container } from 'inversify';
import pino from 'pino';
import { registerCommandRoutes, registerMemoryDeletionRoute, registerTurnRoutes } from './http-routes';
import { turnIntake } from './turn-intake';
import { MemoryDeletion } from './memory-deletion';
import { COMMAND_HANDLER, commandModule } from './module';
import { startRetentionSweeps } from './retention-sweeps';
import { startExtractionProcessor } from './extraction-processor';
import { startEvolution } from './consolidation/evolution';

/** The command service alone (scale writers apart from readers). Needs DATABASE_URL. */
async function main(): Promise<void> {
  const config = readConfig();
  const accessMode = checkBindSafety(config.host, config.apiKeys);
  if (!config.databaseUrl) throw new Error('the command service runs against a shared PostgreSQL: set DATABASE_URL');
  const logger = pino({ level: config.logLevel, name: 'memotrace-command' });
  const database = await openDatabase(config, (m) => logger.info(m));
  const container = new Container();
  await container.load(infraModule(config, database), commandModule);
  const { app, metrics } = createHttpServer({
    storageFault: serviceFault,
    logger,
    metrics: container.get(TOKENS.metrics),
    openApi: buildOpenApiDocument,
    access: new AccessControl(config.apiKeys),
    readiness: [databaseReadiness(database.pool)],
  });
  const handler = container.get(COMMAND_HANDLER);
  registerCommandRoutes(app, handler, metrics);
  // Near-duplicate entity names are also found by the embedding model (EMBEDDINGS), as in the all-in-one service.
  const names = embeddingsFromEnv(process.env);
  const extractor = extractorFromEnv(process.env, names ? nameSimilarity(names) : {});
  // Async turns are derived by whichever writing process takes their job first.
  const extraction = startExtractionProcessor({ pool: database.pool, handler, extractor, config, logger, metrics });
  registerTurnRoutes(app, turnIntake(handler, config, extractor, extraction), metrics);
  metrics.trackExtractionBacklog(() => extraction.backlog());
  // DELETE /v1/memories/{id} (admin): the memory's OpenSearch documents go too when OPENSEARCH_URL is set.
  const openSearch = config.openSearchUrl
    ? new OpenSearchItemIndex({ url: config.openSearchUrl, index: itemIndexFor(embeddingsFromEnv(process.env, 'index')?.model, USE_LITE_MODEL) })
    : undefined;
  registerMemoryDeletionRoute(app, new MemoryDeletion({ pool: database.pool, openSearch, keyStore: database.keyStore, handler }));
  // A memory deleted by another process: its cached state must not decide this process's next batch.
  const deletions = await watchMemoryDeletions(database, {
    forget: (memoryId) => void handler.forgetMemory(memoryId),
    onError: backgroundErrors(logger, 'memory deletion watcher'),
  });
  registerDeletionFence(app, deletions);
  const retention = startRetentionSweeps({
    store: database.store,
    handler,
    intervalMs: config.retentionSweepMs,
    logger,
  });
  const consolidation = startEvolution(app, {
    handler,
    pool: database.pool,
    store: database.store,
    clock: container.get(TOKENS.clock),
    intervalMs: config.consolidateIntervalMs,
    logger,
  });
  logger.info(accessMode);
  await serveUntilSignal(
    app,
    config,
    (m) => logger.info(m),
    async () => {
      await extraction.stop();
      await retention.stop();
      await consolidation.stop();
      await deletions.stop();
      await openSearch?.close();
      await database.close();
    },
  );
}

runMain('memotrace command service', main);
