import { type MemoryState, evolve, initialState } from '@memotrace/domain';
import type { EventStore } from '@memotrace/event-store';
import { memoryStreamId, toMemoryEvent } from '@memotrace/memory-log';

export interface CachedMemory {
  state: MemoryState;
  /** Global position of the memory's last event (0 when empty): its consistency token. */
  lastPosition: number;
}

/**
 * Folded write-side state per memory, caught up from the memory's stream before
 * each decision (another writer may have appended). Bounded, least recently used out.
 */
export class MemoryStateCache {
  private readonly entries = new Map<string, CachedMemory>();

  constructor(
    private readonly store: EventStore,
    private readonly maxMemories = 1000,
  ) {}

  async load(memoryId: string): Promise<CachedMemory> {
    const entry = this.entries.get(memoryId) ?? { state: initialState(), lastPosition: 0 };
    this.entries.delete(memoryId);
    const newer = await this.store.readStream(memoryStreamId(memoryId), { fromRevision: entry.state.eventCount });
    for (const stored of newer) {
      evolve(entry.state, toMemoryEvent(stored));
      entry.lastPosition = stored.position;
    }
    this.remember(memoryId, entry);
    return entry;
  }

  remember(memoryId: string, entry: CachedMemory): void {
    this.entries.delete(memoryId);
    this.entries.set(memoryId, entry);
    if (this.entries.size > this.maxMemories) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
  }

  /** After a failed decision the state may be half-evolved: fold it again next time. */
  forget(memoryId: string): void {
    this.entries.delete(memoryId);
  }
}
