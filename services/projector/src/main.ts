import { onShutdown, openDatabase, readConfig, runMain } from '@memotrace/runtime';
import pino from 'pino';
import { runReadModelProjector } from './run-projector';

/** A projector process alone: follows the log and keeps the read models current. */
async function main(): Promise<void> {
  const config = readConfig();
  if (!config.databaseUrl) throw new Error('the projector writes to a shared PostgreSQL: set DATABASE_URL');
  const logger = pino({ level: config.logLevel, name: 'memotrace-projector' });
  const database = await openDatabase(config, (m) => logger.info(m));
  const projector = await runReadModelProjector(database.store, database.pool, (error) => logger.error({ err: error }, 'projection failed'));
  logger.info(`projector running from position ${projector.position()}`);
  onShutdown(async () => {
    await projector.stop();
    await database.close();
  }, (m) => logger.info(m));
}

runMain('memotrace projector', main);
