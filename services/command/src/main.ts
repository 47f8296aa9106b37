import 'reflect-metadata';
import { buildOpenApiDocument } from '@memotrace/contracts';
import { AccessControl, checkBindSafety, createHttpServer } from '@memotrace/http-kit';
import { TOKENS, databaseReadiness, infraModule, openDatabase, readConfig, runMain, serveUntilSignal } from '@memotrace/runtime';
import { Container } from 'inversify';
import pino from 'pino';
import { registerCommandRoutes } from './http-routes';
import { COMMAND_HANDLER, commandModule } from './module';

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
    logger,
    metrics: container.get(TOKENS.metrics),
    openApi: buildOpenApiDocument,
    access: new AccessControl(config.apiKeys),
    readiness: [databaseReadiness(database.pool)],
  });
  registerCommandRoutes(app, container.get(COMMAND_HANDLER), metrics);
  logger.info(accessMode);
  await serveUntilSignal(
    app,
    config,
    (m) => logger.info(m),
    () => database.close(),
  );
}

runMain('memotrace command service', main);
