import { StreamDeletionWatcher, type StreamDeletionWatcherOptions } from '@memotrace/log-store';
import { memoryIdOfStream } from '@memotrace/memory-log';
import type { FastifyInstance } from 'fastify';
import type { Database } from './database';

export interface MemoryDeletionsOptions extends Pick<StreamDeletionWatcherOptions, 'pollIntervalMs'> {
  /** What else this process holds of a memory (folded states, logs, search corpora): its cached keys always go. */
  forget?: (memoryId: string) => void;
  onError: (error: Error) => void;
}

/**
 * Drops what this process holds of each memory deleted by any process from now on
 * (`DELETE /v1/memories/{id}`): its cached keys, and whatever `forget` drops. Watches the
 * primary's deletion log (a replica does not relay notifications). Stop it before the pool ends.
 */
export async function watchMemoryDeletions(
  database: Pick<Database, 'pool' | 'keyStore'>,
  { forget, onError, ...options }: MemoryDeletionsOptions,
): Promise<StreamDeletionWatcher> {
  const watcher = new StreamDeletionWatcher(
    database.pool,
    ({ streamId }) => {
      const memoryId = memoryIdOfStream(streamId);
      if (memoryId === null) return;
      database.keyStore.forgetMemory(memoryId);
      forget?.(memoryId);
    },
    { onError, ...options },
  );
  await watcher.start();
  return watcher;
}

/**
 * Before each request that names a memory, takes in the deletions committed so far (one indexed
 * read, usually of nothing): a notification arrives a moment after the deletion commits, and a
 * request in that moment must neither read the deleted memory from a cache nor seal a new write
 * under its dropped keys.
 */
export function registerDeletionFence(app: FastifyInstance, deletions: Pick<StreamDeletionWatcher, 'check'>): void {
  app.addHook('preHandler', async (request) => {
    if (typeof (request.params as Record<string, unknown> | undefined)?.['memoryId'] === 'string') await deletions.check();
  });
}
