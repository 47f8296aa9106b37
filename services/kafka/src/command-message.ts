import { isUtf8 } from 'node:buffer';
import { commandsRequest, type ErrorCode, type ErrorDetail, memoryParams, toDomainCommand, zodIssuesToDetails } from '@memotrace/contracts';
import type { Command } from '@memotrace/domain';
import { type AccessControl, HttpError, type Principal, accessForCommands, requireAccess } from '@memotrace/http-kit';
import { createHash } from 'node:crypto';

/**
 * Reads one Kafka message of the commands topic as a batch for one memory, with the
 * same zod contract as `POST /v1/memories/{memoryId}/commands` (SPEC §4):
 *   key     = memoryId (so one memory's commands share a partition and stay ordered)
 *   value   = `{"memoryId"?: ..., "commands": [...]}` or one command object
 *   headers = `authorization: Bearer <key>` when API keys are configured
 * Never throws on bad input: a refusal says why and whether it belongs in the dead-letter topic.
 */

export interface CommandMessage {
  topic: string;
  partition: number;
  offset: string;
  key: Buffer | null;
  value: Buffer | null;
  headers?: Record<string, Buffer | string | (Buffer | string)[] | undefined>;
}

export interface AcceptedBatch {
  ok: true;
  memoryId: string;
  commands: Command[];
  /** The authenticated key id (the `actor` of every command), when access control is on. */
  principal: string | undefined;
}

export interface Refusal {
  ok: false;
  code: ErrorCode;
  message: string;
  details?: ErrorDetail[];
  memoryId: string | undefined;
  /** The commandIds the message named, so their senders get an error result. */
  commandIds: string[];
  /** Malformed or unauthenticated: also goes to the dead-letter topic. A 403 is a plain error result. */
  deadLetter: boolean;
}

export type ReadCommandMessage = AcceptedBatch | Refusal;

export const AUTHORIZATION_HEADER = 'authorization';

export function readCommandMessage(message: CommandMessage, access: AccessControl): ReadCommandMessage {
  let commandIds: string[] = [];
  // `memoryId`: once the message's memory id is known and valid.
  const refuse = (code: ErrorCode, text: string, details?: ErrorDetail[], deadLetter = true, memoryId?: string): Refusal => ({
    ok: false,
    code,
    message: text,
    ...(details ? { details } : {}),
    memoryId,
    commandIds,
    deadLetter,
  });

  if (message.value === null || message.value.length === 0) return refuse('INVALID_REQUEST', 'empty message: the value must be a JSON object');
  // Decoding would turn a bad byte into U+FFFD and store it (SPEC §4: text is valid Unicode).
  if (!isUtf8(message.value)) return refuse('INVALID_REQUEST', 'the value is not valid UTF-8');
  let json: unknown;
  try {
    json = JSON.parse(message.value.toString('utf8'));
  } catch {
    return refuse('INVALID_REQUEST', 'the value is not valid JSON');
  }
  if (json === null || typeof json !== 'object' || Array.isArray(json)) {
    return refuse('INVALID_REQUEST', 'the value must be a JSON object: {"memoryId"?, "commands": [...]} or one command');
  }
  const object = json as Record<string, unknown>;
  let body: Record<string, unknown>;
  let memoryInValue: unknown;
  if (Object.hasOwn(object, 'commands')) {
    const { memoryId: fromValue, ...rest } = object;
    memoryInValue = fromValue;
    body = rest;
  } else if (Object.hasOwn(object, 'op')) {
    body = { commands: [object] };
  } else {
    return refuse('INVALID_REQUEST', 'the value must have "commands" (a batch) or "op" (one command)');
  }
  commandIds = namedCommandIds(body['commands']);

  const key = message.key === null || message.key.length === 0 ? undefined : message.key.toString('utf8');
  if (memoryInValue !== undefined && key !== undefined && memoryInValue !== key) {
    return refuse('INVALID_REQUEST', 'memoryId in the value differs from the message key', [
      { path: 'memoryId', message: 'must equal the message key' },
    ]);
  }
  const claimed = memoryInValue ?? key;
  if (claimed === undefined) return refuse('INVALID_REQUEST', 'no memory id: set the message key to the memoryId (or "memoryId" in the value)');
  const params = memoryParams.safeParse({ memoryId: claimed });
  if (!params.success) return refuse('INVALID_REQUEST', 'invalid memory id', zodIssuesToDetails(params.error));
  const memoryId = params.data.memoryId;

  // As on HTTP, the key is checked before the body is read.
  let granted: Principal | undefined;
  if (access.enabled) {
    try {
      granted = access.authorize(headerValue(message.headers, AUTHORIZATION_HEADER), memoryId, 'write');
    } catch (error) {
      if (!(error instanceof HttpError)) throw error;
      return refuse(error.code, error.message, undefined, error.code === 'UNAUTHORIZED', memoryId);
    }
  }
  const principal = granted?.id;

  const parsed = commandsRequest.safeParse(body);
  if (!parsed.success) return refuse('INVALID_REQUEST', 'invalid commands', zodIssuesToDetails(parsed.error), true, memoryId);
  // An erasure in the batch needs an admin key: the whole message is refused (a plain error result, as any 403).
  try {
    requireAccess(granted, accessForCommands(parsed.data.commands), 'ERASE');
  } catch (error) {
    if (!(error instanceof HttpError)) throw error;
    return refuse(error.code, error.message, undefined, false, memoryId);
  }
  const commands = parsed.data.commands.map((wire, index) =>
    toDomainCommand(principal !== undefined ? { ...wire, actor: principal } : wire, () => assignedCommandId(message, index)),
  );
  return { ok: true, memoryId, commands, principal };
}

/**
 * A command without a commandId gets one derived from where it sits in the topic, so a
 * redelivered message (at-least-once) is recognised as a duplicate instead of applied twice.
 */
export function assignedCommandId(message: Pick<CommandMessage, 'topic' | 'partition' | 'offset'>, index: number): string {
  const hex = createHash('sha256').update(`${message.topic}/${message.partition}/${message.offset}/${index}`).digest('hex');
  return `kafka-${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/** Kafka header names are case-sensitive; accept any case, as HTTP does. */
export function headerValue(headers: CommandMessage['headers'], name: string): string | undefined {
  for (const [key, value] of Object.entries(headers ?? {})) {
    if (key.toLowerCase() !== name || value === undefined) continue;
    const first = Array.isArray(value) ? value[0] : value;
    return first === undefined ? undefined : first.toString();
  }
  return undefined;
}

function namedCommandIds(commands: unknown): string[] {
  if (!Array.isArray(commands)) return [];
  return commands
    .slice(0, 1000)
    .map((c: unknown) => (c !== null && typeof c === 'object' ? (c as Record<string, unknown>)['commandId'] : undefined))
    .filter((id): id is string => typeof id === 'string' && id.length > 0 && id.length <= 256);
}
