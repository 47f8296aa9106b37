import { deleteStreamIn } from '@memotrace/log-store';
import { memoryStreamId } from '@memotrace/memory-log';
import { inTransaction } from '@memotrace/postgres';
import { deleteMemoryItemTiersIn, dropMemoryReadModels } from '@memotrace/read-models';
import { deleteMemoryExtractionJobsIn } from '@memotrace/runtime';
import { dropMemorySearchIndex } from '@memotrace/search-index';
import { deleteMemoryKeysIn } from '@memotrace/subject-keys';
import type { Pool } from 'pg';
import type { CommandHandler } from './command-handler';

export interface MemoryDeletionDeps {
  /** The database of the log (PostgreSQL), the read models and the search index: one transaction deletes from all of them. */
  pool: Pool;
  /** The OpenSearch index, when search runs there. */
  openSearch?: { deleteMemory(memoryId: string): Promise<void> } | undefined;
  /** This process's cache of content keys (crypto-shredding): what it holds of the memory goes once the deletion has committed. */
  keyStore?: { forgetMemory(memoryId: string): void } | undefined;
  /** This process's command handler: the deletion waits for the memory's batches in flight here, and its cached state goes. */
  handler?: Pick<CommandHandler, 'forgetMemory'> | undefined;
  /** Copies this process holds beyond the command handler's (query caches): dropped once the deletion has committed. */
  forgetCopies?: ((memoryId: string, dropped: { vectorHashes: readonly string[] }) => void) | undefined;
}

export interface MemoryDeletionResult {
  memoryId: string;
  /** False when the memory had no log (nothing to delete; leftovers of an earlier failed deletion are removed anyway). */
  deleted: boolean;
  /** Log records removed. */
  records: number;
}

/**
 * `DELETE /v1/memories/{memoryId}` (SPEC §5.2): the memory is removed entirely, and its id then names
 * an empty memory (reads 404 UNKNOWN_MEMORY, a write starts it again at position 1).
 *
 * One transaction removes its log, its read-model rows (in every schema a rebuild made), its search
 * items and the vectors only they referred to, its async extraction jobs, its content keys and erasure
 * tombstones, and its OpenSearch documents. It first locks every
 * projector's checkpoint row (in their order): a projector batch in flight commits before it, and
 * the next waits for it and then skips the memory's records it read earlier (the log says up to
 * which position they are gone), so no copy comes back. Then the caches of this process go;
 * other processes hear of it from the log (`StreamDeletionWatcher`).
 */
export class MemoryDeletion {
  constructor(private readonly deps: MemoryDeletionDeps) {}

  async delete(memoryId: string): Promise<MemoryDeletionResult> {
    const { handler } = this.deps;
    const run = () => this.deleteEverywhere(memoryId);
    const result = handler ? await handler.forgetMemory(memoryId, run) : await run();
    return result!;
  }

  private async deleteEverywhere(memoryId: string): Promise<MemoryDeletionResult> {
    const { pool, openSearch, keyStore, forgetCopies } = this.deps;
    const { log, search } = await inTransaction(pool, async (client) => {
      await client.query('SELECT projection FROM rm_checkpoints ORDER BY projection FOR UPDATE');
      const log = await deleteStreamIn(client, memoryStreamId(memoryId));
      await dropMemoryReadModels(client, memoryId);
      // Its retrieval statistics and tiers: no read model, so named here.
      await deleteMemoryItemTiersIn(client, memoryId);
      const search = await dropMemorySearchIndex(client, memoryId);
      // Its async extraction jobs: none is left to derive into the deleted memory (one under way then appends nothing, see ExtractionProcessor).
      await deleteMemoryExtractionJobsIn(client, memoryId);
      await deleteMemoryKeysIn(client, memoryId);
      // Under the checkpoint locks: the OpenSearch projector cannot write the memory's documents back meanwhile.
      await openSearch?.deleteMemory(memoryId);
      return { log, search };
    });
    keyStore?.forgetMemory(memoryId);
    forgetCopies?.(memoryId, { vectorHashes: search.hashes });
    return { memoryId, deleted: log.records > 0, records: log.records };
  }
}
