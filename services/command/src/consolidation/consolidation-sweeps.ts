import type { LogStore } from '@memotrace/log-store';
import { MEMORY_STREAM_PREFIX, memoryIdOfStream } from '@memotrace/memory-log';
import type { Logger } from 'pino';

export interface ConsolidationSweeps {
  /** Runs every memory due now: the number of memories run. */
  sweep(): Promise<number>;
  /** No sweep starts after this; resolves once the one under way (if any) is done. */
  stop(): Promise<void>;
}

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
 * Runs consolidation in the background (SPEC 5.4): each sweep runs the memories written since this process
 * last ran them, and the others an hour after their last run. A run's commands are digests of their
 * content, so two processes sweeping the same memory append one copy.
 */
export function startConsolidationSweeps(options: ConsolidationSweepOptions): ConsolidationSweeps {
  const { store, run, intervalMs, logger } = options;
  const lastRun = new Map<string, { revision: number; at: number }>();
  let stopped = false;
  let queue: Promise<unknown> = Promise.resolve();
  let timer: NodeJS.Timeout | undefined;

  async function sweepAll(): Promise<number> {
    let ran = 0;
    for (const { streamId, revision } of await store.streamHeads(MEMORY_STREAM_PREFIX)) {
      if (stopped) break;
      const memoryId = memoryIdOfStream(streamId);
      if (memoryId === null) continue;
      const last = lastRun.get(memoryId);
      if (last !== undefined && last.revision === revision && Date.now() - last.at < IDLE_RERUN_MS) continue;
      try {
        await run(memoryId);
        lastRun.set(memoryId, { revision, at: Date.now() });
        ran += 1;
      } catch (error) {
        // One memory's failure (e.g. its log deleted meanwhile) must not hold back the others.
        logger.warn({ err: error, memoryId }, 'consolidation');
      }
    }
    return ran;
  }

  function sweep(): Promise<number> {
    const next = queue.then(sweepAll);
    queue = next.catch(() => undefined);
    return next;
  }

  function schedule(): void {
    if (stopped || intervalMs === 0) return;
    timer = setTimeout(() => {
      sweep()
        .catch((error: unknown) => logger.warn({ err: error }, 'consolidation sweep'))
        .finally(schedule);
    }, intervalMs);
    timer.unref();
  }

  schedule();
  return {
    sweep,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await queue;
    },
  };
}
