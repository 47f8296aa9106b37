import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { RebuildProgress, RebuildResult } from '@memotrace/read-models';

export interface RebuildStatus {
  state: 'idle' | 'running' | 'done' | 'failed';
  to: string | null;
  startedAt: string | null;
  progress: RebuildProgress | null;
  result: RebuildResult | null;
  error: string | null;
}

export interface RebuildWorkerData {
  databaseUrl: string;
  /** The master key wrapping the subject keys: the rebuild reads the log's sealed content opened. */
  masterKey: Uint8Array;
  to: string | null;
}

export type RebuildWorkerMessage = { progress: RebuildProgress } | { result: RebuildResult } | { error: string };

/**
 * Heap of the rebuild thread: the rebuild folds the whole log into one plan in memory
 * (projections/read-models/src/rebuild.ts), more than the service's own bounded heap holds.
 */
const REBUILD_HEAP_MB = 4096;
/**
 * Its young generation (`--max-semi-space-size=64` for the CLI, three semi-spaces): decoded log
 * rows outlive the default one, and their promotion makes V8 mark the growing plan again and
 * again, which slows the rebuild's read and fold.
 */
const REBUILD_YOUNG_MB = 192;

/**
 * One rebuild at a time per process, run in the background on a thread of its own (its
 * own heap, so a large rebuild neither outgrows the service's heap limit nor pauses its
 * requests); its status is what GET /v1/admin/rebuild shows.
 */
export class RebuildJob {
  private status: RebuildStatus = { state: 'idle', to: null, startedAt: null, progress: null, result: null, error: null };
  private running: Promise<void> | undefined;

  constructor(
    private readonly databaseUrl: string,
    private readonly masterKey: Buffer,
  ) {}

  current(): RebuildStatus {
    return this.status;
  }

  /** Starts a rebuild unless one is running (then returns that one's status: `started` false). */
  start(to: string | undefined): { started: boolean; status: RebuildStatus } {
    if (this.status.state === 'running') return { started: false, status: this.status };
    this.status = { state: 'running', to: to ?? null, startedAt: new Date().toISOString(), progress: null, result: null, error: null };
    const workerData: RebuildWorkerData = { databaseUrl: this.databaseUrl, masterKey: new Uint8Array(this.masterKey), to: to ?? null };
    const worker = new Worker(join(__dirname, 'rebuild-worker.cjs'), {
      workerData,
      resourceLimits: { maxOldGenerationSizeMb: REBUILD_HEAP_MB, maxYoungGenerationSizeMb: REBUILD_YOUNG_MB },
    });
    const update = (change: Partial<RebuildStatus>) => void (this.status = { ...this.status, ...change });
    this.running = new Promise((settled) => {
      worker.on('message', (message: RebuildWorkerMessage) => {
        if ('progress' in message) update({ progress: message.progress });
        else if ('result' in message) update({ state: 'done', result: message.result });
        else update({ state: 'failed', error: message.error });
      });
      worker.on('error', (error) => update({ state: 'failed', error: error.message }));
      worker.on('exit', (code) => {
        if (this.status.state === 'running') update({ state: 'failed', error: `the rebuild thread exited with code ${code}` });
        settled();
      });
    });
    return { started: true, status: this.status };
  }

  /** Resolves when the running rebuild (if any) has finished. */
  async settled(): Promise<void> {
    await this.running;
  }
}
