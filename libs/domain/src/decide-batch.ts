import type { Command } from './commands';
import { decide } from './decide';
import { DomainError } from './errors';
import type { LogRecord, RecordMeta, MemoryRecord } from './records';
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
  records: MemoryRecord[];
  results: CommandResult[];
}

/**
 * Decides a batch atomically against `state`, evolving it command by command so
 * later commands see earlier ones. `now` is the server clock (explicit: the domain
 * reads none). On a DomainError nothing may be written and the caller must drop
 * `state` (it was partly evolved).
 */
export function decideBatch(memoryId: string, state: MemoryState, commands: readonly Command[], now: Instant): BatchDecision {
  const records: MemoryRecord[] = [];
  let latest = state.latestRecordedAt;
  const results = commands.map((command, index): CommandResult => {
    // Every accepted command evolves the state, so earlier commands of this batch are here too.
    const original = state.outcomes.get(command.commandId);
    if (original) return { commandId: command.commandId, status: 'duplicate', recordedAt: original.recordedAt, ids: structuredClone(original.ids) };
    const recordedAt = resolveRecordedAt(latest, command, now, index);
    latest = recordedAt;
    try {
      const decision = decide(command, { memoryId, recordedAt, state });
      const meta: RecordMeta = { commandId: command.commandId, recordedAt, actor: command.actor ?? null, reason: command.reason ?? null };
      if (command.derivedFrom !== undefined) meta.derivedFrom = command.derivedFrom;
      const applied = decision.records.length > 0;
      for (const record of applied ? decision.records : [unchangedRecord(command, decision.ids)]) {
        const stamped = { type: record.type, data: record.data, meta } as MemoryRecord;
        evolve(state, stamped);
        records.push(stamped);
      }
      return { commandId: command.commandId, status: applied ? 'applied' : 'unchanged', recordedAt, ids: decision.ids };
    } catch (error) {
      throw error instanceof DomainError ? error.at(index) : error;
    }
  });
  return { records, results };
}

/**
 * The log's record of an `unchanged` command: the command with the ids it resolved to (an
 * import into another memory must not derive them again), `op` first and the other keys
 * sorted, so export -> import -> export gives the same bytes.
 */
function unchangedRecord(command: Command, ids: Record<string, string | string[]>): LogRecord {
  // An ERASE's ids name its subject, which the command holds already: as fields of their own they
  // would make the exported command one that import refuses (ERASE has no `entityId`, ...).
  const resolved: Record<string, unknown> = command.op === 'ERASE' ? { ...command } : { ...command, ...ids };
  const keys = Object.keys(resolved)
    .filter((key) => !ENVELOPE_KEYS.has(key) && key !== 'op')
    .sort();
  const body: Record<string, unknown> = { op: command.op };
  for (const key of keys) body[key] = resolved[key];
  return { type: 'CommandUnchanged', data: { command: body, ids } };
}

const ENVELOPE_KEYS = new Set(['commandId', 'recordedAt', 'actor', 'reason', 'derivedFrom']);

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
