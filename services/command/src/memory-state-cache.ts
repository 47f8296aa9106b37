import { type MemoryState, evolve, initialState } from '@memotrace/domain';
import type { LogStore } from '@memotrace/log-store';
import { readMemoryLog } from '@memotrace/memory-log';

/**
 * A folded state's heap grows with every event it folds: cap the cached events,
 * not just the memories, so RSS stays bounded however large the memories grow.
 */
export const MAX_CACHED_EVENTS = 200_000;

/**
 * Folded write-side state per memory, caught up from the memory's stream before
 * each decision (another writer may have appended). Bounded by memories and by
 * folded events, least recently used out (an evicted memory is folded again on use).
 */
export class MemoryStateCache {
  private readonly entries = new Map<string, MemoryState>();

  constructor(
    private readonly store: LogStore,
    private readonly maxMemories = 1000,
    private readonly maxEvents = MAX_CACHED_EVENTS,
  ) {}

  async load(memoryId: string): Promise<MemoryState> {
    const state = this.entries.get(memoryId) ?? initialState();
    this.entries.delete(memoryId);
    for (const record of await readMemoryLog(this.store, memoryId, state.eventCount)) evolve(state, record);
    this.remember(memoryId, state);
    return state;
  }

  private remember(memoryId: string, state: MemoryState): void {
    this.entries.delete(memoryId);
    this.entries.set(memoryId, state);
    let events = 0;
    for (const cached of this.entries.values()) events += cached.eventCount;
    // Oldest first; the memory just used (last) always stays.
    for (const [id, cached] of this.entries) {
      if (id === memoryId || (this.entries.size <= this.maxMemories && events <= this.maxEvents)) break;
      this.entries.delete(id);
      events -= cached.eventCount;
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
