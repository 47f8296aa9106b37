import type { Observable } from 'rxjs';

/**
 * The log. One port, implemented by PostgreSQL (embedded default) and
 * EventStoreDB/KurrentDB; both must pass the conformance suite.
 *
 * Positions are global, strictly increasing, and readers only ever see events
 * below a safe high-water mark, so a reader that has seen position P never later
 * finds a committed event below P it did not deliver.
 * Revisions are per stream, 0-based; an empty stream has revision -1.
 */
export interface EventMetadata {
  commandId: string;
  recordedAt: string;
  actor: string | null;
  reason: string | null;
}

export interface NewEvent {
  /** UUID; appending an event id the stream already has is an idempotent retry. */
  eventId: string;
  type: string;
  data: unknown;
  metadata: EventMetadata;
  /** Secondary streams the event also belongs to (e.g. a fact's audit stream). */
  tags?: string[];
}

/** What a fold reads of an event: none of what the store assigned (ids, revisions, positions, tags). */
export type EventContent = Pick<NewEvent, 'type' | 'data' | 'metadata'>;

/** An event's content with where it is in the log: what a projection reads. */
export interface PositionedEventContent extends EventContent {
  streamId: string;
  position: number;
}

export interface StoredEvent extends NewEvent {
  streamId: string;
  revision: number;
  position: number;
}

/** A revision number, `'no_stream'` (must be empty) or `'any'`. */
export type ExpectedRevision = number | 'no_stream' | 'any';

export interface AppendResult {
  /** Revision of the stream's last event after the append. */
  nextExpectedRevision: number;
  /** Global position of the last event appended (or of the original append on a retry). */
  position: number;
  /** True when every event id was already in the stream: nothing was written. */
  idempotentRetry: boolean;
}

export interface ReadOptions {
  fromRevision?: number;
  maxCount?: number;
}

export interface ReadAllOptions {
  /** Exclusive: events with position > fromPosition. */
  fromPosition: number;
  maxCount: number;
  /** Only events of streams starting with this prefix. */
  streamPrefix?: string;
}

export interface SubscribeOptions {
  fromPosition: number;
  streamPrefix?: string;
}

export interface EventStore {
  append(streamId: string, events: NewEvent[], options: { expectedRevision: ExpectedRevision }): Promise<AppendResult>;
  readStream(streamId: string, options?: ReadOptions): Promise<StoredEvent[]>;
  /** The contents of a stream's events from a revision on (`readStream` without what the store assigned): the cheapest full read, for folds. */
  readStreamContent(streamId: string, fromRevision?: number): Promise<EventContent[]>;
  readAll(options: ReadAllOptions): Promise<StoredEvent[]>;
  /** `readAll` without event ids, revisions and tags: the cheapest read of the log, for rebuilds. */
  readAllContent(options: ReadAllOptions): Promise<PositionedEventContent[]>;
  /** Events carrying `tag`, in log order. */
  readByTag(tag: string): Promise<StoredEvent[]>;
  /** Highest position a reader may safely have seen. */
  headPosition(): Promise<number>;
  /** Position of the stream's last committed event; 0 for a stream with none. */
  streamPosition(streamId: string): Promise<number>;
  /**
   * Highest position handed out so far, committed or still in flight: no event has a higher one.
   * Ahead of headPosition while an older transaction is open (the safe head waits for it).
   */
  highestPosition(): Promise<number>;
  /** Catch-up from `fromPosition` (exclusive), then live, in position order, each event once. */
  subscribe(options: SubscribeOptions): Observable<StoredEvent>;
  close(): Promise<void>;
}

export class WrongExpectedRevisionError extends Error {
  constructor(
    readonly streamId: string,
    readonly expected: ExpectedRevision,
    readonly actual: number,
  ) {
    super(`stream ${streamId}: expected revision ${String(expected)}, actual ${actual}`);
    this.name = 'WrongExpectedRevisionError';
  }
}

/** Some, but not all, event ids of an append were already in the stream. */
export class IdempotencyConflictError extends Error {
  constructor(readonly streamId: string) {
    super(`stream ${streamId}: append partially overlaps events already written`);
    this.name = 'IdempotencyConflictError';
  }
}
