import type { Command } from './commands';
import { decide } from './decide';
import { DomainError } from './errors';
import type { EventMeta, MemoryEvent } from './events';
import { evolve } from './evolve';
import type { MemoryState } from './state';
import { type Instant, maxInstant } from './time';

export type CommandStatus = 'applied' | 'duplicate' | 'unchanged';

export interface CommandResult {
  commandId: string;
  status: CommandStatus;
  recordedAt: Instant;
  ids: Record<string, string | string[]>;
}

export interface BatchDecision {
  events: MemoryEvent[];
  results: CommandResult[];
}

/**
 * Decides a batch atomically against `state`, evolving it command by command so
 * later commands see earlier ones. `now` is the server clock (explicit: the domain
 * reads none). On a DomainError nothing may be written and the caller must drop
 * `state` (it was partly evolved).
 */
export function decideBatch(memoryId: string, state: MemoryState, commands: readonly Command[], now: Instant): BatchDecision {
  const events: MemoryEvent[] = [];
  // An `unchanged` command writes nothing (SPEC §3.1), so only this batch remembers it.
  const inBatch = new Map<string, CommandResult>();
  let latest = state.latestRecordedAt;
  const results = commands.map((command, index): CommandResult => {
    const original = state.outcomes.get(command.commandId) ?? inBatch.get(command.commandId);
    if (original) return { commandId: command.commandId, status: 'duplicate', recordedAt: original.recordedAt, ids: structuredClone(original.ids) };
    const recordedAt = resolveRecordedAt(latest, command, now, index);
    latest = recordedAt;
    try {
      const decision = decide(command, { memoryId, recordedAt, state });
      const meta: EventMeta = { commandId: command.commandId, recordedAt, actor: command.actor ?? null, reason: command.reason ?? null };
      for (const event of decision.events) {
        const stamped = { type: event.type, data: event.data, meta } as MemoryEvent;
        evolve(state, stamped);
        events.push(stamped);
      }
      const result: CommandResult = { commandId: command.commandId, status: decision.events.length > 0 ? 'applied' : 'unchanged', recordedAt, ids: decision.ids };
      inBatch.set(command.commandId, result);
      return result;
    } catch (error) {
      throw error instanceof DomainError ? error.at(index) : error;
    }
  });
  return { events, results };
}

/** SPEC §2: the client's recordedAt, never before the latest; else max(now, latest). */
function resolveRecordedAt(latest: Instant | null, command: Command, now: Instant, index: number): Instant {
  if (command.recordedAt === undefined) return maxInstant(now, latest);
  if (latest !== null && command.recordedAt < latest) {
    throw new DomainError('RECORD_TIME_REGRESSION', `recordedAt ${command.recordedAt} is earlier than the memory's latest ${latest}`, {
      field: 'recordedAt',
      recordedAt: command.recordedAt,
      latestRecordedAt: latest,
    }).at(index);
  }
  return command.recordedAt;
}
