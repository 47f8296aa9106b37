import 'reflect-metadata';
import { COMMAND_HANDLER, commandModule, registerCommandRoutes } from '@memotrace/command-service';
import { buildOpenApiDocument } from '@memotrace/contracts';
import { AccessControl, checkBindSafety, createHttpServer } from '@memotrace/http-kit';
import { RebuildJob, registerAdminRoutes, runReadModelProjector } from '@memotrace/projector-service';
import { PROJECTION_PROGRESS, QUERY_ROUTE_DEPS, queryModule, registerQueryRoutes } from '@memotrace/query-service';
import { type RuntimeConfig, TOKENS, databaseReadiness, infraModule, openDatabase } from '@memotrace/runtime';
import type { FastifyInstance } from 'fastify';
import { Container } from 'inversify';
import type { Logger } from 'pino';

export interface RunningService {
  app: FastifyInstance;
  url: string;
  databaseUrl: string;
  close(): Promise<void>;
}

/** Composition root of the all-in-one process: command, projector and query side by side. */
export async function startMemoTrace(config: RuntimeConfig, logger: Logger): Promise<RunningService> {
  const accessMode = checkBindSafety(config.host, config.apiKeys); // before anything starts
  const database = await openDatabase(config, (m) => logger.info(m));
  const projector = await runReadModelProjector(database.store, database.pool, (error) => logger.error({ err: error }, 'projection failed'));
  const container = new Container();
  await container.load(infraModule(config, database), commandModule, queryModule);
  container.bind(PROJECTION_PROGRESS).toConstantValue({ waitFor: (position, timeoutMs) => projector.waitForPosition(position, timeoutMs) });

  const { app, metrics } = createHttpServer({
    logger,
    metrics: container.get(TOKENS.metrics),
    openApi: buildOpenApiDocument,
    readiness: [databaseReadiness(database.pool)],
    access: new AccessControl(config.apiKeys),
  });
  registerCommandRoutes(app, container.get(COMMAND_HANDLER), metrics);
  registerQueryRoutes(app, container.get(QUERY_ROUTE_DEPS));
  const rebuild = new RebuildJob(database.pool, database.store);
  registerAdminRoutes(app, rebuild);
  const url = await app.listen({ host: config.host, port: config.port });
  if (config.apiKeys.length > 0) logger.info(accessMode);
  else logger.warn(accessMode);
  return {
    app,
    url,
    databaseUrl: database.url,
    async close() {
      await app.close();
      await rebuild.settled();
      await projector.stop();
      await database.close();
    },
  };
}
