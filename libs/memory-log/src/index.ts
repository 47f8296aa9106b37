import { type DomainEvent, type MemoryEvent, deriveLogEventId, factIdsOf } from '@memotrace/domain';
import type { EventContent, EventStore, NewEvent, PositionedEventContent } from '@memotrace/event-store';

/**
 * How a memory lives in the log: one stream per memory (the consistency boundary:
 * record time is monotone and batches are atomic per memory), and one tag per fact
 * so a fact's audit stream is an index read.
 */
export const MEMORY_STREAM_PREFIX = 'memory-';

export function memoryStreamId(memoryId: string): string {
  return MEMORY_STREAM_PREFIX + memoryId;
}

export function memoryIdOfStream(streamId: string): string | null {
  return streamId.startsWith(MEMORY_STREAM_PREFIX) ? streamId.slice(MEMORY_STREAM_PREFIX.length) : null;
}

export function factTag(memoryId: string, factId: string): string {
  return `fact:${memoryId}:${factId}`;
}

/** Log events for a decided batch; event ids are derived from (memory, command, index) so a retry is idempotent. */
export function toNewEvents(memoryId: string, events: readonly MemoryEvent[]): NewEvent[] {
  let commandId: string | null = null;
  let index = 0;
  return events.map((event) => {
    index = event.meta.commandId === commandId ? index + 1 : 0;
    commandId = event.meta.commandId;
    return {
      eventId: deriveLogEventId(memoryId, event.meta.commandId, index),
      type: event.type,
      data: event.data,
      metadata: { ...event.meta },
      tags: factIdsOf(event).map((factId) => factTag(memoryId, factId)),
    };
  });
}

export interface LoggedMemoryEvent {
  memoryId: string;
  position: number;
  event: MemoryEvent;
}

/** A memory's log from a revision on, as domain events (contents only: no fold reads ids, positions or tags). */
export async function readMemoryLog(store: Pick<EventStore, 'readStreamContent'>, memoryId: string, fromRevision = 0): Promise<MemoryEvent[]> {
  return (await store.readStreamContent(memoryStreamId(memoryId), fromRevision)).map(toMemoryEvent);
}

export function toMemoryEvent(stored: EventContent): MemoryEvent {
  const { commandId, recordedAt, actor, reason } = stored.metadata;
  return { type: stored.type, data: stored.data, meta: { commandId, recordedAt, actor, reason } } as DomainEvent & { meta: MemoryEvent['meta'] };
}

export function toLoggedEvent(stored: PositionedEventContent): LoggedMemoryEvent | null {
  const memoryId = memoryIdOfStream(stored.streamId);
  return memoryId === null ? null : { memoryId, position: stored.position, event: toMemoryEvent(stored) };
}
