import 'reflect-metadata';
import { COMMAND_HANDLER, commandModule } from '@memotrace/command-service';
import { AccessControl } from '@memotrace/http-kit';
import { TOKENS, infraModule, onShutdown, openDatabase, readConfig, runMain } from '@memotrace/runtime';
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
  const bridge = await startKafkaBridge({
    config: config.kafka,
    handler: container.get(COMMAND_HANDLER),
    access: new AccessControl(config.apiKeys),
    store: database.store,
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
      await database.close();
    },
    (m) => logger.info(m),
  );
}

runMain('memotrace kafka bridge', main);
