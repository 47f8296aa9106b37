import type { Command } from './commands';
import type { MemoryRecord } from './records';
import { evolve } from './evolve';
import { commandBodyOf } from './record-types';
import { type MemoryState, initialState } from './state';

/**
 * The accepted commands of a log, one per command, fully resolved (explicit ids
 * and values), so replaying them into another memory gives the same answers.
 * Derived records (supersessions) are not exported: replay derives them again.
 * Key order is fixed, so export → import → export is byte-stable.
 */
export function commandsOfLog(records: Iterable<MemoryRecord>): Command[] {
  const state = initialState();
  const commands: Command[] = [];
  let lastCommandId: string | null = null;
  for (const record of records) {
    if (record.meta.commandId !== lastCommandId) {
      lastCommandId = record.meta.commandId;
      commands.push(commandOf(record, state));
    }
    evolve(state, record);
  }
  return commands;
}

function commandOf(record: MemoryRecord, state: MemoryState): Command {
  const { commandId, recordedAt, actor, reason, derivedFrom } = record.meta;
  const envelope = {
    commandId,
    recordedAt,
    ...(actor !== null ? { actor } : {}),
    ...(reason !== null ? { reason } : {}),
    ...(derivedFrom !== undefined ? { derivedFrom } : {}),
  };
  return { ...commandBodyOf(record, state), ...envelope } as Command;
}
