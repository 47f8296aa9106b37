import 'reflect-metadata';
import { consoleBundle, registerConsole } from '@memotrace/console';
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
import { Container } from 'inversify';
import pino from 'pino';
import { extractorFromEnv } from '@memotrace/extraction';
import { claimReader } from './claim-reader';
import { registerQueryRoutes } from './http-routes';
import { SEARCH_INDEX_PROJECTION, USE_LITE_MODEL, embeddingsFromEnv } from '@memotrace/search-index';
import { OpenSearchItemIndex, itemIndexFor, openSearchProjectionName } from '@memotrace/search-opensearch';
import {
  EMBEDDING_PROVIDER,
  OPENSEARCH_INDEX,
  OPENSEARCH_PROGRESS,
  PROJECTION_PROGRESS,
  QUERY_ROUTE_DEPS,
  SEARCH_INDEX_PROGRESS,
  queryModule,
} from './module';
import { PollingProjectionProgress } from './polling-progress';

/** A stateless query process: run any number, optionally against a replica (READ_DATABASE_URL). */
async function main(): Promise<void> {
  const config = readConfig();
  const accessMode = checkBindSafety(config.host, config.apiKeys);
  if (!config.databaseUrl) throw new Error('the query service reads a shared PostgreSQL: set DATABASE_URL');
  const logger = pino({ level: config.logLevel, name: 'memotrace-query' });
  void consoleBundle(); // esbuild bundles the console while the database opens
  const database = await openDatabase(config, (m) => logger.info(m));
  const container = new Container();
  await container.load(infraModule(config, database), queryModule);
  container.bind(PROJECTION_PROGRESS).toConstantValue(new PollingProjectionProgress(database.readPool));
  const embeddings = embeddingsFromEnv();
  if (embeddings) {
    container.bind(EMBEDDING_PROVIDER).toConstantValue(embeddings);
    container.bind(SEARCH_INDEX_PROGRESS).toConstantValue(new PollingProjectionProgress(database.readPool, 10, SEARCH_INDEX_PROJECTION));
  }
  // OPENSEARCH_URL: k-NN candidates from OpenSearch (the projector service feeds it); the cut and the ranking stay this process's.
  if (config.openSearchUrl) {
    const index = itemIndexFor(embeddings?.model, USE_LITE_MODEL);
    container.bind(OPENSEARCH_INDEX).toConstantValue(new OpenSearchItemIndex({ url: config.openSearchUrl, index }));
    container.bind(OPENSEARCH_PROGRESS).toConstantValue(new PollingProjectionProgress(database.readPool, 10, openSearchProjectionName(index)));
  }
  const { app } = createHttpServer({
    storageFault: serviceFault,
    logger,
    metrics: container.get(TOKENS.metrics),
    openApi: buildOpenApiDocument,
    access: new AccessControl(config.apiKeys),
    readiness: [databaseReadiness(database.readPool)],
  });
  const queries = container.get(QUERY_ROUTE_DEPS);
  // A check's text is read as the command service reads turns: the same extractor, from the same environment.
  const extractor = extractorFromEnv(process.env, embeddings ? nameSimilarity(embeddings) : {});
  registerQueryRoutes(app, { ...queries, readClaims: claimReader(extractor) });
  await registerConsole(app); // the web console at /console: its reads work against this process alone
  // A memory deleted (by the command side): this process must not answer from what it holds of it.
  const deletions = await watchMemoryDeletions(database, {
    forget: (memoryId) => queries.forgetMemory?.(memoryId),
    onError: backgroundErrors(logger, 'memory deletion watcher'),
  });
  registerDeletionFence(app, deletions);
  logger.info(accessMode);
  await serveUntilSignal(
    app,
    config,
    (m) => logger.info(m),
    async () => {
      await deletions.stop();
      await database.close();
    },
  );
}

runMain('memotrace query service', main);
