import type { EventStore } from '@memotrace/event-store';
import { readModelsProjection, startProjector } from '@memotrace/read-models';
import type { Pool } from 'pg';

export type RunningProjector = Awaited<ReturnType<typeof startProjector>>;

/** Starts the read-model projector: from its checkpoint, catch-up then live. */
export function runReadModelProjector(store: EventStore, pool: Pool, onError: (error: Error) => void): Promise<RunningProjector> {
  return startProjector({ store, pool, projections: [readModelsProjection], onError });
}
