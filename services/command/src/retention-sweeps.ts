import type { LogStore } from '@memotrace/log-store';
import { RETENTION_TAG, memoryIdOfStream } from '@memotrace/memory-log';
import type { Logger } from 'pino';
import type { CommandHandler } from './command-handler';
import { type Sweeps, startSweeps } from './sweeps';

/** `sweep()` counts the facts whose content it erased. */
export type RetentionSweeps = Sweeps;

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
  return startSweeps({
    label: 'retention sweep',
    intervalMs,
    logger,
    memories: async () => {
      const memories = new Set<string>();
      for (const record of await store.readByTag(RETENTION_TAG)) {
        const memoryId = memoryIdOfStream(record.streamId);
        if (memoryId !== null) memories.add(memoryId);
      }
      return memories;
    },
    each: async (memoryId) => {
      const outcome = await handler.applyRetention(memoryId);
      const facts = outcome?.results.filter((r) => r.status === 'applied').length ?? 0;
      if (facts > 0) logger.info({ memoryId, facts }, 'retention erased the content of facts');
      return facts;
    },
  });
}
