import type { LogStore } from '@memotrace/log-store';
import { MEMORY_STREAM_PREFIX, memoryIdOfStream } from '@memotrace/memory-log';
import type { Logger } from 'pino';
import { type Sweeps, startSweeps } from '../sweeps';

/** `sweep()` counts the memories it ran. */
export type ConsolidationSweeps = Sweeps;

export interface ConsolidationSweepOptions {
  store: Pick<LogStore, 'streamHeads'>;
  /** One memory's run (`consolidate`). */
  run(memoryId: string): Promise<unknown>;
  /** Between the end of a sweep and the start of the next; 0 sweeps only when `sweep()` is called. */
  intervalMs: number;
  logger: Pick<Logger, 'warn'>;
}

/** A memory not written since its last run is run again after this long: cooling needs time, not writes. */
const IDLE_RERUN_MS = 3_600_000;

/**
 * The largest log a background sweep consolidates. A run walks the whole memory beside its folded state, so a
 * larger one runs only when asked (`POST …/consolidate`): a sweep must never take the heap the process's
 * requests need (docs/benchmarks.md gives a run's RSS).
 */
export const BACKGROUND_MAX_RECORDS = 200_000;

/**
 * Runs consolidation in the background (SPEC 5.4): each sweep runs the memories written since this process
 * last ran them, and the others an hour after their last run, up to BACKGROUND_MAX_RECORDS records. A run's
 * commands are digests of their content, so two processes sweeping the same memory append one copy.
 *
 * A memory runs only once it is quiet: its log the same at two sweeps in a row. A run appends at the server
 * clock, and a client back-filling a dialog with earlier record times (imports, `recordedAt` in the past)
 * could not write after it (RECORD_TIME_REGRESSION): a sweep never interrupts a memory being written.
 */
export function startConsolidationSweeps(options: ConsolidationSweepOptions): ConsolidationSweeps {
  const { store, run, intervalMs, logger } = options;
  const lastRun = new Map<string, { revision: number; at: number }>();
  /** Each memory's revision at the previous sweep: a memory whose revision moved since is being written. */
  const seen = new Map<string, number>();
  const revisions = new Map<string, number>();
  return startSweeps({
    label: 'consolidation',
    intervalMs,
    logger,
    memories: async () => {
      const due: string[] = [];
      for (const { streamId, revision } of await store.streamHeads(MEMORY_STREAM_PREFIX)) {
        const memoryId = memoryIdOfStream(streamId);
        if (memoryId === null || revision + 1 > BACKGROUND_MAX_RECORDS) continue;
        const quiet = seen.get(memoryId) === revision;
        seen.set(memoryId, revision);
        if (!quiet) continue;
        const last = lastRun.get(memoryId);
        if (last !== undefined && last.revision === revision && Date.now() - last.at < IDLE_RERUN_MS) continue;
        revisions.set(memoryId, revision);
        due.push(memoryId);
      }
      return due;
    },
    each: async (memoryId) => {
      await run(memoryId);
      lastRun.set(memoryId, { revision: revisions.get(memoryId)!, at: Date.now() });
      return 1;
    },
  });
}
