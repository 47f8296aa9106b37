import { type MemoryState, evolve, initialState } from '@memotrace/domain';
import { HttpError } from '@memotrace/http-kit';
import type { LogStore } from '@memotrace/log-store';
import { readMemoryLog } from '@memotrace/memory-log';

/** Records read per page while a memory is folded: a long log is never held whole beside its state. */
const FOLD_PAGE = 10_000;

/**
 * Folded write-side state per memory, caught up from the memory's log before each decision
 * (another writer may have appended). A folded state's heap grows with every record it folds, so
 * the cache is bounded by memories and by folded records, least recently used out (an evicted
 * memory is folded again on use); a memory with more records than the bound alone is not folded
 * past it: deciding its commands answers 503 MEMORY_TOO_LARGE, and every other memory is served.
 */
export class MemoryStateCache {
  private readonly entries = new Map<string, MemoryState>();
  /** Memories found too large, by the records they had then: a log only grows, so one read shows it still is. */
  private readonly tooLarge = new Map<string, number>();

  constructor(
    private readonly store: LogStore,
    private readonly maxRecords: number,
    private readonly maxMemories = 1000,
  ) {}

  async load(memoryId: string): Promise<MemoryState> {
    await this.refuseKnownTooLarge(memoryId);
    const state = this.entries.get(memoryId) ?? initialState();
    this.entries.delete(memoryId);
    for (;;) {
      const page = await readMemoryLog(this.store, memoryId, state.eventCount, FOLD_PAGE);
      for (const record of page) evolve(state, record);
      if (state.eventCount > this.maxRecords) {
        this.tooLarge.set(memoryId, state.eventCount);
        throw this.tooLargeError(memoryId, state.eventCount);
      }
      if (page.length < FOLD_PAGE) break;
    }
    this.remember(memoryId, state);
    return state;
  }

  private async refuseKnownTooLarge(memoryId: string): Promise<void> {
    const records = this.tooLarge.get(memoryId);
    if (records === undefined) return;
    // Deleted since (a memory of that id starts again empty): fold it as any other.
    if ((await readMemoryLog(this.store, memoryId, records - 1, 1)).length === 0) this.tooLarge.delete(memoryId);
    else throw this.tooLargeError(memoryId, records);
  }

  private tooLargeError(memoryId: string, records: number): HttpError {
    return new HttpError(
      'MEMORY_TOO_LARGE',
      `memory ${JSON.stringify(memoryId)} has at least ${records.toLocaleString('en')} log records, more than this process folds to decide ` +
        `its commands (STATE_CACHE_RECORDS=${this.maxRecords}): nothing was written; raise STATE_CACHE_RECORDS and the heap with it`,
    );
  }

  private remember(memoryId: string, state: MemoryState): void {
    this.entries.set(memoryId, state);
    let records = 0;
    for (const cached of this.entries.values()) records += cached.eventCount;
    // Oldest first; the memory just used (last) always stays.
    for (const [id, cached] of this.entries) {
      if (id === memoryId || (this.entries.size <= this.maxMemories && records <= this.maxRecords)) break;
      this.entries.delete(id);
      records -= cached.eventCount;
    }
  }

  /** Memories held now, least recently used first. */
  cachedMemories(): string[] {
    return [...this.entries.keys()];
  }

  /** After a failed decision the state may be half-evolved: fold it again next time. */
  forget(memoryId: string): void {
    this.entries.delete(memoryId);
  }
}
