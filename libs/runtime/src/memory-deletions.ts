import { StreamDeletionWatcher, type StreamDeletionWatcherOptions } from '@memotrace/log-store';
import { memoryIdOfStream } from '@memotrace/memory-log';
import type { FastifyInstance } from 'fastify';
import type { Pool } from 'pg';

/**
 * Calls `forget` with each memory deleted by any process from now on (`DELETE /v1/memories/{id}`),
 * so this process drops what it holds of it: folded states, logs, search corpora, keys. Watches the
 * primary's deletion log (a replica does not relay notifications). Stop it before the pool ends.
 */
export async function watchMemoryDeletions(
  pool: Pool,
  forget: (memoryId: string) => void,
  onError: (error: Error) => void,
  options: Pick<StreamDeletionWatcherOptions, 'pollIntervalMs'> = {},
): Promise<StreamDeletionWatcher> {
  const watcher = new StreamDeletionWatcher(
    pool,
    ({ streamId }) => {
      const memoryId = memoryIdOfStream(streamId);
      if (memoryId !== null) forget(memoryId);
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
