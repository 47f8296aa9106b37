import { PostgresMemoryQueries } from '@memotrace/read-models';
import { TOKENS } from '@memotrace/runtime';
import { ContainerModule, type ServiceIdentifier } from 'inversify';
import { ConsistencyGate, type ProjectionProgress } from './consistency';
import type { QueryRouteDeps } from './http-routes';
import { ReplayMemoryQueries } from './replay-queries';

export const PROJECTION_PROGRESS: ServiceIdentifier<ProjectionProgress> = Symbol.for('memotrace.projectionProgress');
export const QUERY_ROUTE_DEPS: ServiceIdentifier<QueryRouteDeps> = Symbol.for('memotrace.queryRouteDeps');

/** Binds the read side; PROJECTION_PROGRESS comes from the composition root (in-process projector or polling). */
export const queryModule = new ContainerModule(({ bind }) => {
  bind(QUERY_ROUTE_DEPS)
    .toDynamicValue((ctx) => {
      const store = ctx.get(TOKENS.store);
      const gate = new ConsistencyGate(new PostgresMemoryQueries(ctx.get(TOKENS.readPool)), new ReplayMemoryQueries(store), store, ctx.get(PROJECTION_PROGRESS), {
        minPositionTimeoutMs: 10_000,
        headWaitMs: 2_000,
      });
      const clock = ctx.get(TOKENS.clock);
      return { gate, store, now: () => clock.now() };
    })
    .inSingletonScope();
});
