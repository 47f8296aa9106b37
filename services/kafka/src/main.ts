import 'reflect-metadata';
import { COMMAND_HANDLER, commandModule } from '@memotrace/command-service';
import { AccessControl } from '@memotrace/http-kit';
import { TOKENS, infraModule, onShutdown, openDatabase, readConfig, runMain, watchMemoryDeletions, backgroundErrors } from '@memotrace/runtime';
import { Container } from 'inversify';
import pino from 'pino';
import { startKafkaBridge } from './kafka-bridge';

/** The Kafka bridge alone (`npm run start:kafka`): command consumer + event relay. Needs KAFKA_BROKERS and DATABASE_URL. */
async function main(): Promise<void> {
  const config = readConfig();
  if (!config.kafka) throw new Error('set KAFKA_BROKERS (host:port[,host:port...]) to run the Kafka bridge');
  if (!config.databaseUrl) throw new Error('the Kafka bridge runs against a shared PostgreSQL: set DATABASE_URL');
  const logger = pino({ level: config.logLevel, name: 'memotrace-kafka' });
  const database = await openDatabase(config, (m) => logger.info(m));
  const container = new Container();
  await container.load(infraModule(config, database), commandModule);
  const handler = container.get(COMMAND_HANDLER);
  // A memory deleted by another process: its cached state and keys must not serve this process's next batch.
  const deletions = await watchMemoryDeletions(database, {
    forget: (memoryId) => void handler.forgetMemory(memoryId),
    onError: backgroundErrors(logger, 'memory deletion watcher'),
  });
  const bridge = await startKafkaBridge({
    config: config.kafka,
    handler,
    deletions,
    access: new AccessControl(config.apiKeys),
    // Kafka carries the log as stored: content published sealed is unreadable once its key is destroyed.
    store: database.sealedStore,
    pool: database.pool,
    logger,
    metrics: container.get(TOKENS.metrics),
  });
  logger.info(
    config.apiKeys.length > 0
      ? `access control on: ${config.apiKeys.length} API key(s)`
      : 'no API keys configured: commands need no authorization header',
  );
  onShutdown(
    async () => {
      await bridge.stop();
      await deletions.stop();
      await database.close();
    },
    (m) => logger.info(m),
  );
}

runMain('memotrace kafka bridge', main);
