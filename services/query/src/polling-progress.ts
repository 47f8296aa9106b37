import { projectedPosition } from '@memotrace/projection';
import { READ_MODELS_PROJECTION } from '@memotrace/read-models';
import type { Pool } from 'pg';
import type { ProjectionProgress } from './consistency';

/** A projection's progress seen from a query process that runs no projector: polls its checkpoint (the read models' by default). */
export class PollingProjectionProgress implements ProjectionProgress {
  constructor(
    private readonly pool: Pool,
    private readonly intervalMs = 10,
    private readonly projection = READ_MODELS_PROJECTION,
  ) {}

  async waitFor(position: number, timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if ((await projectedPosition(this.pool, this.projection)) >= position) return true;
      if (Date.now() >= deadline) return false;
      await new Promise((resolve) => setTimeout(resolve, this.intervalMs));
    }
  }
}
