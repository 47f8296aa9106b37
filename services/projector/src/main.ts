import { onShutdown, openDatabase, readConfig, runMain, watchMemoryDeletions, backgroundErrors } from '@memotrace/runtime';
import { USE_LITE_MODEL, embeddingsFromEnv } from '@memotrace/search-index';
import { OpenSearchItemIndex, itemIndexFor } from '@memotrace/search-opensearch';
import pino from 'pino';
import { runOpenSearchProjector, runReadModelProjector, runSearchIndexProjector } from './run-projector';
import { startWorkSharingProjector } from './work-sharing';

/**
 * A projector process alone: follows the log and keeps the read models current.
 * PROJECTOR_PARTITIONS=P (P > 1): run any number of these processes; they share the
 * memories' P partitions among themselves (see work-sharing.ts). Every process of one
 * deployment must use the same P.
 */
async function main(): Promise<void> {
  const config = readConfig();
  if (!config.databaseUrl) throw new Error('the projector writes to a shared PostgreSQL: set DATABASE_URL');
  const partitions = parsePartitions(process.env['PROJECTOR_PARTITIONS']);
  const logger = pino({ level: config.logLevel, name: 'memotrace-projector' });
  const database = await openDatabase(config, (m) => logger.info(m));
  const onError = backgroundErrors(logger, 'projection failed', 'error');
  // A memory deleted and written again: the keys this process cached of the old one open nothing of the new one.
  const deletions = await watchMemoryDeletions(database, {
    onError: backgroundErrors(logger, 'memory deletion watcher'),
  });
  let stop: () => Promise<void>;
  if (partitions === 1) {
    const projector = await runReadModelProjector(database.store, database.pool, onError);
    logger.info(`projector running from position ${projector.position()}`);
    stop = () => projector.stop();
  } else {
    const sharing = await startWorkSharingProjector({
      store: database.store,
      pool: database.pool,
      partitions,
      onError,
      onChange: (owned) => logger.info({ owned }, `projector owns partitions [${owned.join(', ')}] of ${partitions}`),
    });
    stop = () => sharing.stop();
  }
  // OPENSEARCH_URL: also feed the OpenSearch index (whole log, own checkpoint row; replicas
  // running it too are safe: the checkpoint row is locked per batch and the projection is idempotent);
  // and, with an embedding model, the search projection's vectors, likewise.
  const embeddings = embeddingsFromEnv(process.env, 'index');
  const openSearch = config.openSearchUrl
    ? new OpenSearchItemIndex({ url: config.openSearchUrl, index: itemIndexFor(embeddings?.model, USE_LITE_MODEL) })
    : undefined;
  const openSearchProjector = openSearch
    ? await runOpenSearchProjector(database.store, database.pool, openSearch, embeddings, backgroundErrors(logger, 'OpenSearch projection failed'))
    : undefined;
  // The search projection's vectors (by text hash): the query services rank with them, on either backend.
  const searchIndex = embeddings
    ? await runSearchIndexProjector(
        database.store,
        database.pool,
        embeddings,
        backgroundErrors(logger, 'search index projection failed (search falls back to BM25)'),
      )
    : undefined;
  onShutdown(
    async () => {
      await searchIndex?.stop();
      await openSearchProjector?.stop();
      await openSearch?.close();
      await stop();
      await deletions.stop();
      await database.close();
    },
    (m) => logger.info(m),
  );
}

function parsePartitions(value: string | undefined): number {
  if (value === undefined || value === '') return 1;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 1024) throw new Error(`PROJECTOR_PARTITIONS must be an integer in 1..1024, got ${value}`);
  return n;
}

runMain('memotrace projector', main);
