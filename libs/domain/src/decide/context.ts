import type { LogRecord } from '../records';
import { DomainError } from '../errors';
import type { MemoryState } from '../state';
import type { Instant } from '../time';

export interface DecideContext {
  memoryId: string;
  /** The record time this command is accepted at. */
  recordedAt: Instant;
  state: MemoryState;
}

/** Records to append (none: the command changes nothing) and the ids it touched. */
export interface Decision {
  records: LogRecord[];
  ids: Record<string, string | string[]>;
}

export function unchanged(ids: Record<string, string | string[]>): Decision {
  return { records: [], ids };
}

/** The canonical id of an existing entity; 404 UNKNOWN_ENTITY otherwise. */
export function requireEntity(state: MemoryState, entityId: string, field: string): string {
  if (!state.entities.has(entityId)) {
    throw new DomainError('UNKNOWN_ENTITY', `unknown entity ${JSON.stringify(entityId)}`, { field, entityId });
  }
  return state.classes.canonical(entityId);
}

export function requireFacts(state: MemoryState, factIds: readonly string[], field: string): void {
  for (const factId of factIds) {
    if (!state.facts.has(factId)) throw new DomainError('UNKNOWN_FACT', `unknown fact ${JSON.stringify(factId)}`, { field, factId });
  }
}

export function requireEvents(state: MemoryState, eventIds: readonly string[], field: string): void {
  for (const eventId of eventIds) {
    if (!state.events.has(eventId)) throw new DomainError('UNKNOWN_EVENT', `unknown event ${JSON.stringify(eventId)}`, { field, eventId });
  }
}

export function sameList(a: readonly unknown[], b: readonly unknown[]): boolean {
  return a.length === b.length && a.every((item, i) => JSON.stringify(item) === JSON.stringify(b[i]));
}

export function unique<T>(items: readonly T[]): T[] {
  return [...new Set(items)];
}
