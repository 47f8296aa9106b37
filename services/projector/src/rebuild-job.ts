import type { EventStore } from '@memotrace/event-store';
import { type RebuildProgress, type RebuildResult, rebuildReadModels } from '@memotrace/read-models';
import type { Pool } from 'pg';

export interface RebuildStatus {
  state: 'idle' | 'running' | 'done' | 'failed';
  to: string | null;
  startedAt: string | null;
  progress: RebuildProgress | null;
  result: RebuildResult | null;
  error: string | null;
}

/** One rebuild at a time per process, run in the background; its status is what GET /v1/admin/rebuild shows. */
export class RebuildJob {
  private status: RebuildStatus = { state: 'idle', to: null, startedAt: null, progress: null, result: null, error: null };
  private running: Promise<void> | undefined;

  constructor(
    private readonly pool: Pool,
    private readonly store: EventStore,
  ) {}

  current(): RebuildStatus {
    return this.status;
  }

  /** Starts a rebuild unless one is running (then returns that one's status: `started` false). */
  start(to: string | undefined): { started: boolean; status: RebuildStatus } {
    if (this.status.state === 'running') return { started: false, status: this.status };
    this.status = { state: 'running', to: to ?? null, startedAt: new Date().toISOString(), progress: null, result: null, error: null };
    this.running = rebuildReadModels({ pool: this.pool, store: this.store, ...(to !== undefined ? { to } : {}), onProgress: (p) => (this.status = { ...this.status, progress: p }) }).then(
      (result) => void (this.status = { ...this.status, state: 'done', result }),
      (error: Error) => void (this.status = { ...this.status, state: 'failed', error: error.message }),
    );
    return { started: true, status: this.status };
  }

  /** Resolves when the running rebuild (if any) has finished. */
  async settled(): Promise<void> {
    await this.running;
  }
}
