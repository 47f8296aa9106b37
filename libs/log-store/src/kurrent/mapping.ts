import { createHash } from 'node:crypto';
import type {
  AppendStreamState,
  CurrentStreamState,
  JSONEventData,
  JSONType,
  BinaryEventData,
  Position,
  ReadPosition,
  RecordedEvent,
} from '@kurrent/kurrentdb-client';
import type { RecordMetadata, ExpectedRevision, NewRecord, StoredRecord } from '../port';

/**
 * Pure translation between the LogStore port and the KurrentDB client's types: no client
 * code runs here (type imports only), so this is unit-testable without a server.
 */

// The client's constants, restated as typed literals so this module needs no runtime import.
export const ANY: Extract<AppendStreamState, 'any'> = 'any';
export const NO_STREAM: Extract<AppendStreamState, 'no_stream'> = 'no_stream';
export const START: Extract<ReadPosition, 'start'> = 'start';
export const END: Extract<ReadPosition, 'end'> = 'end';

/** Event type of a KurrentDB link event (`"<revision>@<stream>"` pointing at another event). */
export const LINK_EVENT_TYPE = '$>';
/** Tag index streams: one per tag, holding link events to the tagged events. */
export const TAG_STREAM_PREFIX = 'tag-';

/** The port's expected revision as the client's stream state: -1 means "no stream" too. */
export function toStreamState(expected: ExpectedRevision): AppendStreamState {
  if (expected === 'any') return ANY;
  if (expected === 'no_stream') return NO_STREAM;
  if (!Number.isSafeInteger(expected) || expected < -1)
    throw new RangeError(`expected revision must be an integer >= -1, 'no_stream' or 'any', got ${String(expected)}`);
  return expected === -1 ? NO_STREAM : BigInt(expected);
}

/** The port's rule for an expected revision against the stream's current one (-1: empty). */
export function matchesRevision(expected: ExpectedRevision, current: number): boolean {
  if (expected === 'any') return true;
  if (expected === 'no_stream') return current === -1;
  return expected === current;
}

/** A stream state the server reports (e.g. the actual state of a WrongExpectedVersionError) as a revision. */
export function toRevision(state: CurrentStreamState | bigint): number {
  if (state === NO_STREAM) return -1;
  return toSafeNumber(state, 'stream revision');
}

/** A $all position as the port's number: the commit position (for events appended through gRPC, equal to the prepare position). */
export function toPositionNumber(position: Position | undefined): number {
  if (position === undefined) {
    throw new Error('KurrentDB returned an event without its $all position (stream reads carry it from server version 22.6 on)');
  }
  return toSafeNumber(position.commit, 'commit position');
}

/** The port's exclusive start position as a read position: 0 is the start of $all. */
export function toReadPosition(position: number): ReadPosition {
  if (!Number.isSafeInteger(position) || position < 0) throw new RangeError(`position must be a non-negative integer, got ${position}`);
  if (position === 0) return START;
  const value = BigInt(position);
  return { commit: value, prepare: value };
}

export function tagStreamName(tag: string): string {
  return TAG_STREAM_PREFIX + tag;
}

/** What the event's metadata holds in KurrentDB: the port's metadata and the tags. */
interface MetadataEnvelope {
  metadata: RecordMetadata;
  tags: string[];
}

export function toEventData(event: NewRecord): JSONEventData {
  const envelope: MetadataEnvelope = { metadata: event.metadata, tags: uniqueTags(event) };
  return {
    id: event.recordId,
    contentType: 'application/json',
    type: event.type,
    // The client JSON.stringifies data; null is valid JSON although its typings leave it out.
    data: (event.data ?? null) as JSONType,
    metadata: envelope as unknown as JSONType,
  };
}

export function uniqueTags(event: NewRecord): string[] {
  return [...new Set(event.tags ?? [])];
}

/** A link event for the tag stream, with an id derived from (tag, stream, event id) so a retried link is the same event. */
export function toLinkEvent(tag: string, stored: { streamId: string; revision: number; recordId: string }): BinaryEventData {
  return {
    id: uuidV5(`${tag}\n${stored.streamId}\n${stored.recordId.toLowerCase()}`, LINK_ID_NAMESPACE),
    contentType: 'application/octet-stream',
    type: LINK_EVENT_TYPE,
    data: new TextEncoder().encode(`${stored.revision}@${stored.streamId}`),
    metadata: undefined,
  };
}

/** Where a link event's data (`<revision>@<stream>`) points; undefined for data that is not a link. */
export function linkTarget(data: Uint8Array): { streamId: string; revision: number } | undefined {
  const text = new TextDecoder().decode(data);
  const at = text.indexOf('@');
  const revision = Number(text.slice(0, at));
  if (at <= 0 || !Number.isSafeInteger(revision)) return undefined;
  return { streamId: text.slice(at + 1), revision };
}

/**
 * Events of the log proper. Link events (tag index entries) and system events ($-prefixed types
 * or streams) are KurrentDB bookkeeping, never port events; the server-side filters already
 * drop them, this is the client-side guard.
 */
export function isPortRecord(recorded: { type: string; streamId: string }): boolean {
  return !recorded.type.startsWith('$') && !recorded.streamId.startsWith('$');
}

export function toStoredRecord(recorded: RecordedEvent): StoredRecord {
  const envelope = readEnvelope(recorded.metadata);
  return {
    streamId: recorded.streamId,
    revision: toSafeNumber(recorded.revision, 'stream revision'),
    position: toPositionNumber(recorded.position),
    recordId: recorded.id,
    type: recorded.type,
    data: recorded.data,
    metadata: envelope.metadata,
    tags: envelope.tags,
  };
}

/** Events written by other applications carry other metadata: pass it through, untagged. */
function readEnvelope(raw: unknown): MetadataEnvelope {
  if (raw !== null && typeof raw === 'object' && 'metadata' in raw && 'tags' in raw && Array.isArray(raw.tags)) {
    return { metadata: raw.metadata as RecordMetadata, tags: raw.tags as string[] };
  }
  return { metadata: raw as RecordMetadata, tags: [] };
}

export function isWrongExpectedVersion(error: unknown): error is { actualState: CurrentStreamState } {
  return hasType(error, 'wrong-expected-version');
}

export function isStreamNotFound(error: unknown): boolean {
  return hasType(error, 'stream-not-found');
}

// Duck-typed on the client's ErrorType values, so two copies of the client package still agree.
const hasType = (error: unknown, type: string) => error !== null && typeof error === 'object' && (error as { type?: unknown }).type === type;

function toSafeNumber(value: bigint, what: string): number {
  const number = Number(value);
  if (!Number.isSafeInteger(number) || number < 0) throw new RangeError(`${what} ${value} does not fit the port's numbers`);
  return number;
}

const LINK_ID_NAMESPACE = '6f1e4c52-8a8e-4f6b-9d55-2b0d3e6c7a19';

/** RFC 4122 name-based UUID (version 5, SHA-1). */
export function uuidV5(name: string, namespace: string): string {
  const hash = createHash('sha1')
    .update(Buffer.from(namespace.replace(/-/g, ''), 'hex'))
    .update(name, 'utf8')
    .digest();
  hash[6] = (hash[6]! & 0x0f) | 0x50;
  hash[8] = (hash[8]! & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
