import type { LogStore } from '@memotrace/log-store';
import { RETENTION_TAG, memoryIdOfStream } from '@memotrace/memory-log';
import type { Logger } from 'pino';
import type { CommandHandler } from './command-handler';

export interface RetentionSweeps {
  /** Sweeps every memory with a retention now: the number of facts whose content it erased. */
  sweep(): Promise<number>;
  /** No sweep starts after this; resolves once the one under way (if any) is done. */
  stop(): Promise<void>;
}

export interface RetentionSweepOptions {
  store: Pick<LogStore, 'readByTag'>;
  handler: Pick<CommandHandler, 'applyRetention'>;
  /** Between the end of a sweep and the start of the next; 0 sweeps only when `sweep()` is called. */
  intervalMs: number;
  logger: Pick<Logger, 'info' | 'warn'>;
}

/**
 * Erases the content of facts whose relation's retention has elapsed, by the path an ERASE takes
 * (the command handler, actor `retention`). The memories visited are those whose log declared a
 * retention (a tag on those records), so a sweep reads nothing of memories without one. Every
 * writing process may sweep: an erasure's command id is derived from what it erases, so two
 * sweeps of the same content write one erasure.
 */
export function startRetentionSweeps(options: RetentionSweepOptions): RetentionSweeps {
  const { store, handler, intervalMs, logger } = options;
  let stopped = false;
  let queue: Promise<unknown> = Promise.resolve();
  let timer: NodeJS.Timeout | undefined;

  async function sweepAll(): Promise<number> {
    const memories = new Set<string>();
    for (const record of await store.readByTag(RETENTION_TAG)) {
      const memoryId = memoryIdOfStream(record.streamId);
      if (memoryId !== null) memories.add(memoryId);
    }
    let erased = 0;
    for (const memoryId of memories) {
      if (stopped) break;
      try {
        const outcome = await handler.applyRetention(memoryId);
        const facts = outcome?.results.filter((r) => r.status === 'applied').length ?? 0;
        if (facts > 0) logger.info({ memoryId, facts }, 'retention erased the content of facts');
        erased += facts;
      } catch (error) {
        // One memory's failure (e.g. its log deleted meanwhile) must not hold back the others.
        logger.warn({ err: error, memoryId }, 'retention sweep');
      }
    }
    return erased;
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
        .catch((error: unknown) => logger.warn({ err: error }, 'retention sweep'))
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
