import { onShutdown, readConfig, runMain } from '@memotrace/runtime';
import pino from 'pino';
import { startMemoTrace } from './app';

/** `npm start`: the whole service in one process, on the embedded PostgreSQL unless DATABASE_URL is set. */
async function main(): Promise<void> {
  const config = readConfig();
  const logger = pino({ level: config.logLevel, name: 'memotrace' });
  const service = await startMemoTrace(config, logger);
  logger.info(`MemoTrace listening on ${service.url} (OpenAPI at ${service.url}/docs)`);
  onShutdown(
    () => service.close(),
    (m) => logger.info(m),
  );
}

runMain('memotrace', main);
