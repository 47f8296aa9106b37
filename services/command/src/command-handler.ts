import { type Command, type CommandResult, DomainError, decideBatch } from '@memotrace/domain';
import { type LogStore, WrongExpectedRevisionError } from '@memotrace/log-store';
import { memoryStreamId, toNewRecords } from '@memotrace/memory-log';
import type { Clock } from './clock';
import { KeyedMutex } from './keyed-mutex';
import { MemoryStateCache } from './memory-state-cache';

export interface BatchOutcome {
  /** Consistency token: the memory's position after this batch, its log's length (positions are per memory). */
  position: number;
  results: CommandResult[];
  /** Number of events appended. */
  appended: number;
}

const MAX_CONFLICT_RETRIES = 20;

/**
 * Applies a batch atomically: catch up, decide, append with optimistic
 * concurrency on the memory's stream. A conflict (another writer got there first)
 * re-decides against the newer state; a domain error writes nothing.
 */
export class CommandHandler {
  private readonly cache: MemoryStateCache;
  private readonly mutex = new KeyedMutex();

  constructor(
    private readonly store: LogStore,
    private readonly clock: Clock,
  ) {
    this.cache = new MemoryStateCache(store);
  }

  handle(memoryId: string, commands: readonly Command[]): Promise<BatchOutcome> {
    return this.mutex.run(memoryId, () => this.attempt(memoryId, commands, MAX_CONFLICT_RETRIES));
  }

  /**
   * Replays an exported log into an empty memory as one atomic append, so a bad
   * line or a non-empty target writes nothing.
   */
  importLog(memoryId: string, commands: readonly Command[]): Promise<BatchOutcome> {
    return this.mutex.run(memoryId, async () => {
      const state = await this.cache.load(memoryId);
      if (state.eventCount > 0) throw new DomainError('MEMORY_NOT_EMPTY', `memory ${memoryId} already has events; import needs an empty memory`);
      // No retry: a concurrent writer means the memory is no longer empty.
      return this.attempt(memoryId, commands, 0);
    });
  }

  private async attempt(memoryId: string, commands: readonly Command[], retriesLeft: number): Promise<BatchOutcome> {
    const state = await this.cache.load(memoryId);
    const expectedRevision = state.eventCount - 1;
    let decision;
    try {
      decision = decideBatch(memoryId, state, commands, this.clock.now());
    } catch (error) {
      this.cache.forget(memoryId);
      throw error;
    }
    // The decision evolved the cached state: its event count is the memory's position after this batch.
    const position = state.eventCount;
    if (decision.records.length === 0) return { position, results: decision.results, appended: 0 };
    try {
      await this.store.append(memoryStreamId(memoryId), toNewRecords(memoryId, decision.records), {
        expectedRevision: expectedRevision < 0 ? 'no_stream' : expectedRevision,
      });
      return { position, results: decision.results, appended: decision.records.length };
    } catch (error) {
      this.cache.forget(memoryId);
      if (error instanceof WrongExpectedRevisionError && retriesLeft > 0) {
        // Another process wrote this memory: back off a little (jittered) and re-decide.
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 5 * (MAX_CONFLICT_RETRIES - retriesLeft + 1)));
        return this.attempt(memoryId, commands, retriesLeft - 1);
      }
      throw error;
    }
  }
}
