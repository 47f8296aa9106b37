import type { Logger } from 'pino';

export interface Sweeps {
  /** Sweeps now (after the sweep under way, if any): what the sweep counts. */
  sweep(): Promise<number>;
  /** No sweep starts after this; resolves once the one under way (if any) is done. */
  stop(): Promise<void>;
}

/**
 * The shape of a writing process's background work over its memories (retention, consolidation): a
 * sweep over every memory due, each memory's failure logged and passed over so it never holds back the
 * others, sweeps never overlapping, the next one `intervalMs` after the end of the last (0: only when
 * `sweep()` is called). `memories` lists what is due; `each` runs one and says what it counts.
 */
export function startSweeps(options: {
  label: string;
  memories(): Promise<Iterable<string>>;
  each(memoryId: string): Promise<number>;
  intervalMs: number;
  logger: Pick<Logger, 'warn'>;
}): Sweeps {
  const { label, memories, each, intervalMs, logger } = options;
  let stopped = false;
  let queue: Promise<unknown> = Promise.resolve();
  let timer: NodeJS.Timeout | undefined;

  async function sweepAll(): Promise<number> {
    let counted = 0;
    for (const memoryId of await memories()) {
      if (stopped) break;
      try {
        counted += await each(memoryId);
      } catch (error) {
        // One memory's failure (e.g. its log deleted meanwhile) must not hold back the others.
        logger.warn({ err: error, memoryId }, label);
      }
    }
    return counted;
  }

  function sweep(): Promise<number> {
    // Sweeps never overlap: a call during one runs after it.
    const next = queue.then(sweepAll);
    queue = next.catch(() => undefined);
    return next;
  }

  function schedule(): void {
    if (stopped || intervalMs === 0) return;
    timer = setTimeout(() => {
      sweep()
        .catch((error: unknown) => logger.warn({ err: error }, label))
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
