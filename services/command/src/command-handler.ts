import { MAX_BATCH } from '@memotrace/contracts';
import {
  type Command,
  type CommandResult,
  DomainError,
  type ErasedItems,
  type MemoryState,
  changesOf,
  decideBatch,
  retentionErasures,
} from '@memotrace/domain';
import { type LogStore, WrongExpectedRevisionError } from '@memotrace/log-store';
import { type Sealer, erasuresOf, memoryStreamId, sealBatch } from '@memotrace/memory-log';
import { DEFAULT_STATE_CACHE_RECORDS } from '@memotrace/runtime';
import type { SubjectKeyStore } from '@memotrace/subject-keys';
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

/** A batch of commands, or how to make it from the memory's state when it is decided. */
export type Batch = readonly Command[] | ((state: MemoryState) => readonly Command[]);

/** A batch's precondition on the memory's state did not hold: nothing was written. */
export class PreconditionFailedError extends Error {
  constructor(readonly memoryId: string) {
    super(`the precondition of a batch for memory ${memoryId} does not hold: nothing was written`);
    this.name = 'PreconditionFailedError';
  }
}

/**
 * Applies a batch atomically: catch up, decide, append with optimistic
 * concurrency on the memory's stream. A conflict (another writer got there first)
 * re-decides against the newer state; a domain error writes nothing.
 */
export class CommandHandler {
  private readonly cache: MemoryStateCache;
  private readonly mutex = new KeyedMutex();
  private readonly seal: Sealer;
  private erasureListeners: ((memoryId: string, erased: ErasedItems) => Promise<void>)[] = [];

  /**
   * `seal` defaults to sealBatch under `keyStore`; the sealing benchmark passes one that seals nothing.
   * `maxStateRecords` bounds the log records kept folded (STATE_CACHE_RECORDS).
   */
  constructor(
    private readonly store: LogStore,
    private readonly clock: Clock,
    private readonly keyStore: SubjectKeyStore,
    seal?: Sealer,
    maxStateRecords = DEFAULT_STATE_CACHE_RECORDS,
  ) {
    this.cache = new MemoryStateCache(store, maxStateRecords);
    this.seal = seal ?? ((memoryId, records, stateAfter, firstRevision) => sealBatch(keyStore, memoryId, records, stateAfter, firstRevision));
  }

  /**
   * `requires`, when given, must hold of the memory's state each time the batch is decided (a retry
   * after a conflict included), else nothing is written and the batch fails with PreconditionFailedError.
   * `commands` may be a function of that state (it must not change it), called at each decision: a batch
   * that completes what the memory holds (a derived fact adding its turn to the fact's evidence) is then
   * exact even when another process wrote in between.
   */
  handle(memoryId: string, commands: Batch, requires?: (state: MemoryState) => boolean): Promise<BatchOutcome> {
    return this.mutex.run(memoryId, () => this.attempt(memoryId, commands, MAX_CONFLICT_RETRIES, requires));
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

  /**
   * Called after each appended erasure with the items whose content it erased: what the service keeps
   * beside the log about them (retrieval statistics) goes too. A listener's failure fails nothing written.
   */
  onErasure(listener: (memoryId: string, erased: ErasedItems) => Promise<void>): void {
    this.erasureListeners.push(listener);
  }

  /** What `view` reads of the memory's state, caught up with its log (the view must not keep or change the state). */
  readState<T>(memoryId: string, view: (state: MemoryState) => T): Promise<T> {
    return this.mutex.run(memoryId, async () => view(await this.cache.load(memoryId)));
  }

  /**
   * Erases, as one batch, the content of the memory's facts whose relation's retention has elapsed by
   * the clock (ERASE commands with actor `retention`); null when none is due. At most `limit` at once:
   * the next sweep takes the rest.
   */
  applyRetention(memoryId: string, limit = MAX_BATCH): Promise<BatchOutcome | null> {
    return this.mutex.run(memoryId, async () => {
      const due = retentionErasures(await this.cache.load(memoryId), this.clock.now());
      return due.length === 0 ? null : this.attempt(memoryId, due.slice(0, limit), MAX_CONFLICT_RETRIES);
    });
  }

  /**
   * Forgets the memory's cached state once the batches of the memory in flight here are done: its log
   * was deleted (here or by another process), and what is cached of it must not decide the next batch.
   * `during`, when given (the deletion itself), runs first, while no batch of the memory is decided here.
   */
  forgetMemory<T>(memoryId: string, during?: () => Promise<T>): Promise<T | undefined> {
    return this.mutex.run(memoryId, async () => {
      try {
        return await during?.();
      } finally {
        this.cache.forget(memoryId);
      }
    });
  }

  private async attempt(memoryId: string, batch: Batch, retriesLeft: number, requires?: (state: MemoryState) => boolean): Promise<BatchOutcome> {
    const state = await this.cache.load(memoryId);
    if (requires && !requires(state)) throw new PreconditionFailedError(memoryId);
    const expectedRevision = state.eventCount - 1;
    let decision;
    try {
      decision = decideBatch(memoryId, state, typeof batch === 'function' ? batch(state) : batch, this.clock.now());
    } catch (error) {
      this.cache.forget(memoryId);
      throw error;
    }
    // The decision evolved the cached state: its event count is the memory's position after this batch.
    const position = state.eventCount;
    if (decision.records.length === 0) return { position, results: decision.results, appended: 0 };
    try {
      const { records, keySet } = this.seal(memoryId, decision.records, state, expectedRevision + 1);
      const appended = await this.store.append(memoryStreamId(memoryId), records, {
        expectedRevision: expectedRevision < 0 ? 'no_stream' : expectedRevision,
        ...(keySet && { alongside: (tx) => this.keyStore.writeKeySet(memoryId, keySet, tx) }),
      });
      if (appended.idempotentRetry) {
        // Another process appended these very records first (same command ids, e.g. two racing retention sweeps or
        // a client's retry sent to two processes): what it wrote stands, at its record time, and this batch is its
        // duplicate. The state decided here is not the log's: fold it again and answer from there.
        this.cache.forget(memoryId);
        return await this.attempt(memoryId, batch, retriesLeft, requires);
      }
      // The erasures are in the log: destroy their keys. A crash before this leaves them to the log's
      // next reader (`openRecords` confirms every erasure it meets).
      await this.keyStore.destroy(memoryId, erasuresOf(records));
      for (const change of decision.records.flatMap(changesOf)) {
        if (change.change !== 'erased') continue;
        for (const listener of this.erasureListeners) await listener(memoryId, change).catch(() => undefined);
      }
      return { position, results: decision.results, appended: decision.records.length };
    } catch (error) {
      this.cache.forget(memoryId);
      if (error instanceof WrongExpectedRevisionError && retriesLeft > 0) {
        // Another process wrote this memory: back off a little (jittered) and re-decide.
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 5 * (MAX_CONFLICT_RETRIES - retriesLeft + 1)));
        return this.attempt(memoryId, batch, retriesLeft - 1, requires);
      }
      throw error;
    }
  }
}
