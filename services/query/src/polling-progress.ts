import { projectedPosition } from '@memotrace/projection';
import { READ_MODELS_PROJECTION } from '@memotrace/read-models';
import type { Pool } from 'pg';
import type { ProjectionProgress } from './consistency';

/** Read-model progress seen from a query process that runs no projector: polls the checkpoint. */
export class PollingProjectionProgress implements ProjectionProgress {
  constructor(
    private readonly pool: Pool,
    private readonly intervalMs = 10,
  ) {}

  async waitFor(position: number, timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if ((await projectedPosition(this.pool, READ_MODELS_PROJECTION)) >= position) return true;
      if (Date.now() >= deadline) return false;
      await new Promise((resolve) => setTimeout(resolve, this.intervalMs));
    }
  }
}
