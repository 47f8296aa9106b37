import type { LogStore } from '@memotrace/log-store';
import { ItemTiers } from '@memotrace/read-models';
import type { FastifyInstance } from 'fastify';
import type { Pool } from 'pg';
import type { Logger } from 'pino';
import type { CommandHandler } from '../command-handler';
import { registerConsolidateRoute } from '../http-routes';
import { type ConsolidationSweeps, startConsolidationSweeps } from './consolidation-sweeps';
import { consolidate } from './consolidator';

export interface EvolutionOptions {
  handler: CommandHandler;
  /** The database of the read models, where the retrieval statistics and tiers live. */
  pool: Pool;
  store: Pick<LogStore, 'streamHeads'>;
  clock: { now(): string };
  /** Between background sweeps (CONSOLIDATE_INTERVAL_MS); 0: only `POST .../consolidate` runs it. */
  intervalMs: number;
  logger: Pick<Logger, 'warn'>;
}

/**
 * A writing process's part of the memory's evolution (SPEC 5.4): `POST .../consolidate`, the background
 * sweeps that run the same, and erasure reaching the retrieval statistics.
 */
export function startEvolution(app: FastifyInstance, options: EvolutionOptions): ConsolidationSweeps {
  const { handler, pool, store, clock, intervalMs, logger } = options;
  const tiers = new ItemTiers(pool);
  handler.onErasure((memoryId, erased) => tiers.forgetErased(memoryId, erased));
  const run = (memoryId: string) => consolidate(memoryId, { handler, tiers, clock });
  registerConsolidateRoute(app, run);
  return startConsolidationSweeps({ store, run, intervalMs, logger });
}
