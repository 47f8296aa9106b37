import type { Command } from '@memotrace/domain';
import { commandsRequest, type WireCommand } from './commands';
import { invalidRequest, type ErrorResponse } from './errors';

export type { Command as DomainCommand } from '@memotrace/domain';

/** Whether `undefined` appears anywhere inside (checked first: copying every command is what costs). */
function holdsUndefined(value: unknown): boolean {
  if (value === undefined) return true;
  if (value === null || typeof value !== 'object') return false;
  if (Array.isArray(value)) return value.some(holdsUndefined);
  for (const key in value) if (Object.hasOwn(value, key) && holdsUndefined((value as Record<string, unknown>)[key])) return true;
  return false;
}

/** Removes `undefined`-valued keys, recursively through plain objects and arrays. */
function dropUndefined<T>(value: T): T {
  if (Array.isArray(value)) return value.map(dropUndefined) as T;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined);
    return Object.fromEntries(entries.map(([k, v]) => [k, dropUndefined(v)])) as T; // own keys only, even `__proto__`
  }
  return value;
}

/**
 * A validated wire command as a domain `Command`: the client's `commandId` if it
 * gave one, else `newCommandId()` (the edge assigns one; called only then, as drawing
 * or deriving one costs); absent fields stay absent.
 */
export function toDomainCommand(wire: WireCommand, newCommandId: () => string): Command {
  const command: Command = { ...wire, commandId: wire.commandId ?? newCommandId() };
  return holdsUndefined(command) ? dropUndefined(command) : command;
}

export type ParsedCommands = { ok: true; commands: Command[] } | { ok: false; error: ErrorResponse };

/**
 * Validates a `POST .../commands` body and converts it to domain commands, calling
 * `newCommandId` for each command that has no `commandId`. Never throws on bad input.
 */
export function parseCommandsRequest(body: unknown, newCommandId: () => string): ParsedCommands {
  const parsed = commandsRequest.safeParse(body);
  if (!parsed.success) return { ok: false, error: invalidRequest(parsed.error, 'invalid commands request') };
  return { ok: true, commands: parsed.data.commands.map((c) => toDomainCommand(c, newCommandId)) };
}
