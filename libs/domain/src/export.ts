import type { Command } from './commands';
import type { MemoryEvent } from './events';
import { evolve } from './evolve';
import { commandBodyOf } from './record-types';
import { type MemoryState, initialState } from './state';

/**
 * The accepted commands of a log, one per command, fully resolved (explicit ids
 * and values), so replaying them into another memory gives the same answers.
 * Derived events (supersessions) are not exported: replay derives them again.
 * Key order is fixed, so export → import → export is byte-stable.
 */
export function commandsOfLog(events: Iterable<MemoryEvent>): Command[] {
  const state = initialState();
  const commands: Command[] = [];
  let lastCommandId: string | null = null;
  for (const event of events) {
    if (event.meta.commandId !== lastCommandId) {
      lastCommandId = event.meta.commandId;
      commands.push(commandOf(event, state));
    }
    evolve(state, event);
  }
  return commands;
}

function commandOf(event: MemoryEvent, state: MemoryState): Command {
  const { commandId, recordedAt, actor, reason } = event.meta;
  const envelope = { commandId, recordedAt, ...(actor !== null ? { actor } : {}), ...(reason !== null ? { reason } : {}) };
  return { ...commandBodyOf(event, state), ...envelope } as Command;
}
