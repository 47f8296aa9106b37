import { ServiceMetrics } from '@memotrace/http-kit';
import { ContainerModule } from 'inversify';
import type { RuntimeConfig } from './config';
import type { Database } from './database';
import { TOKENS } from './tokens';

const systemClock = { now: () => new Date().toISOString() };

/** Binds what every service shares: config, database pools, the log, clock, metrics. */
export function infraModule(config: RuntimeConfig, database: Database): ContainerModule {
  return new ContainerModule(({ bind }) => {
    bind(TOKENS.config).toConstantValue(config);
    bind(TOKENS.pool).toConstantValue(database.pool);
    bind(TOKENS.readPool).toConstantValue(database.readPool);
    bind(TOKENS.store).toConstantValue(database.store);
    bind(TOKENS.keyStore).toConstantValue(database.keyStore);
    bind(TOKENS.clock).toConstantValue(systemClock);
    bind(TOKENS.metrics).toConstantValue(new ServiceMetrics());
  });
}
