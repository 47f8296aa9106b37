import type { ErrorCode, ErrorDetail } from '@memotrace/contracts';
import type { CommandResult } from '@memotrace/domain';
import type { StoredRecord } from '@memotrace/log-store';
import { memoryIdOfStream } from '@memotrace/memory-log';
import type { Message } from 'kafkajs';
import { AUTHORIZATION_HEADER, type CommandMessage, type Refusal } from './command-message';

/** Where a result or dead letter came from, so a sender can match it to the offset its produce returned. */
export interface SourceRef {
  topic: string;
  partition: number;
  offset: string;
}

/** Value of a message on the results topic (key = commandId). */
export type CommandResultMessage =
  | (CommandResult & { memoryId: string; position: number; source: SourceRef })
  | {
      commandId: string | null;
      memoryId: string | null;
      status: 'error';
      error: { code: ErrorCode; message: string; details?: ErrorDetail[] };
      source: SourceRef;
    };

/** Value of a message on the dead-letter topic (key = the original key). */
export interface DeadLetterMessage {
  code: ErrorCode;
  reason: string;
  details?: ErrorDetail[];
  source: SourceRef & { key: string | null };
  /** The original value, as text when it is UTF-8, else base64. */
  payload: string | null;
  payloadEncoding: 'utf8' | 'base64';
}

/** Value of a message on the events topic (key = memoryId). Consumers drop repeats by `position`. */
export interface EventMessage {
  position: number;
  memoryId: string;
  revision: number;
  eventId: string;
  type: string;
  data: unknown;
  metadata: StoredRecord['metadata'];
}

export const POSITION_HEADER = 'memotrace-position';

export function sourceOf(message: CommandMessage): SourceRef {
  return { topic: message.topic, partition: message.partition, offset: message.offset };
}

export function appliedResults(memoryId: string, position: number, results: readonly CommandResult[], source: SourceRef): Message[] {
  return results.map((result) => json(result.commandId, { ...result, memoryId, position, source } satisfies CommandResultMessage));
}

/** One error result per command of the batch (a batch is atomic: none was applied), or one with a null commandId. */
export function errorResults(
  commandIds: readonly string[],
  memoryId: string | undefined,
  error: { code: ErrorCode; message: string; details?: ErrorDetail[] },
  source: SourceRef,
): Message[] {
  const ids = commandIds.length > 0 ? [...new Set(commandIds)] : [null];
  return ids.map((commandId) =>
    json(commandId, { commandId, memoryId: memoryId ?? null, status: 'error', error, source } satisfies CommandResultMessage),
  );
}

export function refusalResults(refusal: Refusal, source: SourceRef): Message[] {
  const error = { code: refusal.code, message: refusal.message, ...(refusal.details ? { details: refusal.details } : {}) };
  return errorResults(refusal.commandIds, refusal.memoryId, error, source);
}

/** The dead letter keeps the original key, value and headers, minus the bearer token. */
export function deadLetter(message: CommandMessage, refusal: Refusal): Message {
  const value = message.value;
  const utf8 = value === null || Buffer.from(value.toString('utf8'), 'utf8').equals(value);
  const letter: DeadLetterMessage = {
    code: refusal.code,
    reason: refusal.message,
    ...(refusal.details ? { details: refusal.details } : {}),
    source: { ...sourceOf(message), key: message.key?.toString('utf8') ?? null },
    payload: value === null ? null : value.toString(utf8 ? 'utf8' : 'base64'),
    payloadEncoding: utf8 ? 'utf8' : 'base64',
  };
  const headers = Object.fromEntries(
    Object.entries(message.headers ?? {}).filter(([name, v]) => name.toLowerCase() !== AUTHORIZATION_HEADER && v !== undefined),
  ) as Message['headers'];
  return { key: message.key, value: JSON.stringify(letter), headers: { ...headers, 'dlq-code': refusal.code, 'dlq-reason': refusal.message } };
}

export function eventMessage(event: StoredRecord): Message | null {
  const memoryId = memoryIdOfStream(event.streamId);
  if (memoryId === null) return null;
  const value: EventMessage = {
    position: event.position,
    memoryId,
    revision: event.revision,
    eventId: event.recordId,
    type: event.type,
    data: event.data,
    metadata: event.metadata,
  };
  return { key: memoryId, value: JSON.stringify(value), headers: { [POSITION_HEADER]: String(event.position), 'memotrace-event-type': event.type } };
}

function json(key: string | null, value: unknown): Message {
  return { key, value: JSON.stringify(value) };
}
