import { commandsRequest, type DomainCommand, type WireCommand } from './commands';
import { invalidRequest, type ErrorResponse } from './errors';

/*
 * The edge's step from a validated wire command to the command the domain decides on. Contracts
 * import no project: the domain's `Command` is `DomainCommand` (./commands), not the other way round.
 */

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
 * A validated wire command as a domain command (`DomainCommand`): the client's `commandId` if it
 * gave one, else `newCommandId()` (the edge assigns one; called only then, as drawing
 * or deriving one costs); absent fields stay absent.
 */
export function toDomainCommand(wire: WireCommand, newCommandId: () => string): DomainCommand {
  const command: DomainCommand = { ...wire, commandId: wire.commandId ?? newCommandId() };
  return holdsUndefined(command) ? dropUndefined(command) : command;
}

export type ParsedCommands = { ok: true; commands: DomainCommand[] } | { ok: false; error: ErrorResponse };

/**
 * Validates a `POST .../commands` body and converts it to domain commands, calling
 * `newCommandId` for each command that has no `commandId`. Never throws on bad input.
 */
export function parseCommandsRequest(body: unknown, newCommandId: () => string): ParsedCommands {
  const parsed = commandsRequest.safeParse(body);
  if (!parsed.success) return { ok: false, error: invalidRequest(parsed.error, 'invalid commands request') };
  return { ok: true, commands: parsed.data.commands.map((c) => toDomainCommand(c, newCommandId)) };
}
