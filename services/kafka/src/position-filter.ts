import type { EventMessage } from './messages';

/**
 * For consumers of the events topic: the relay may publish an event twice after a
 * crash (at-least-once), always in position order per memory. Keep the last position
 * seen per memory and drop anything at or below it; what remains is every event
 * exactly once, in log order per memory. Persist `snapshot()` with your own
 * checkpoint if you consume across restarts.
 */
export class PositionFilter {
  private readonly last = new Map<string, number>();

  constructor(initial: Iterable<[string, number]> = []) {
    for (const [memoryId, position] of initial) this.last.set(memoryId, position);
  }

  /** True when the event is new for its memory (and records it), false for a repeat. */
  accept(event: Pick<EventMessage, 'memoryId' | 'position'>): boolean {
    const seen = this.last.get(event.memoryId) ?? 0;
    if (event.position <= seen) return false;
    this.last.set(event.memoryId, event.position);
    return true;
  }

  snapshot(): Map<string, number> {
    return new Map(this.last);
  }
}
