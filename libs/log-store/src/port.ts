import type pg from 'pg';
import type { Observable } from 'rxjs';

/**
 * The log. One port, implemented by PostgreSQL (embedded default) and
 * EventStoreDB/KurrentDB; both must pass the conformance suite.
 *
 * Positions are global, strictly increasing, and readers only ever see records
 * below a safe high-water mark, so a reader that has seen position P never later
 * finds a committed record below P it did not deliver.
 * Revisions are per stream, 0-based; an empty stream has revision -1.
 */
export interface RecordMetadata {
  commandId: string;
  recordedAt: string;
  actor: string | null;
  reason: string | null;
  /** Mention ids the command was derived from (the domain's `RecordMeta`); absent when none. */
  derivedFrom?: string[];
}

export interface NewRecord {
  /** UUID; appending an record id the stream already has is an idempotent retry. */
  recordId: string;
  type: string;
  data: unknown;
  metadata: RecordMetadata;
  /** Secondary streams the record also belongs to (e.g. a fact's audit stream). */
  tags?: string[];
}

/** What a fold reads of an record: none of what the store assigned (ids, revisions, positions, tags). */
export type RecordContent = Pick<NewRecord, 'type' | 'data' | 'metadata'>;

/** An record's content with where it is in the log: what a projection reads. */
export interface PositionedRecordContent extends RecordContent {
  streamId: string;
  position: number;
}

export interface StoredRecord extends NewRecord {
  streamId: string;
  revision: number;
  position: number;
}

/** A revision number, `'no_stream'` (must be empty) or `'any'`. */
export type ExpectedRevision = number | 'no_stream' | 'any';

/** What work alongside an append may do in its transaction: run statements. */
export type TransactionClient = Pick<pg.ClientBase, 'query'>;

export interface AppendOptions {
  expectedRevision: ExpectedRevision;
  /**
   * Writes that commit or roll back with the records: a PostgreSQL store runs them in the append's
   * transaction, after the records are written (under the stream's lock, the revision checked), so
   * they are written exactly when the records are. Not run when nothing is written (an idempotent
   * retry). A store that shares no transaction with PostgreSQL refuses an append that has them.
   */
  alongside?: (tx: TransactionClient) => Promise<void>;
}

export interface AppendResult {
  /** Revision of the stream's last record after the append. */
  nextExpectedRevision: number;
  /** Global position of the last record appended (or of the original append on a retry). */
  position: number;
  /** True when every record id was already in the stream: nothing was written. */
  idempotentRetry: boolean;
}

/** A non-empty stream's last record: what `streamHeads` lists. */
export interface StreamHead {
  streamId: string;
  /** Revision of the stream's last record: the stream holds revision + 1 records. */
  revision: number;
  /** Global position of the stream's last record. */
  position: number;
  /** Metadata of the stream's last record. */
  metadata: RecordMetadata;
}

/** Stream ids in code unit order: how every adapter sorts `streamHeads` (not a database collation). */
export function byStreamId(a: { streamId: string }, b: { streamId: string }): number {
  return a.streamId < b.streamId ? -1 : a.streamId > b.streamId ? 1 : 0;
}

/** What `deleteStream` removed. */
export interface DeletedStream {
  /** How many records were removed: 0 when the stream had none (nothing was done). */
  records: number;
  /** Global position of the last record removed (0 when none): no record of the stream at or below it is read again. */
  position: number;
}

export interface ReadOptions {
  fromRevision?: number;
  maxCount?: number;
}

export interface ReadAllOptions {
  /** Exclusive: records with position > fromPosition. */
  fromPosition: number;
  maxCount: number;
  /** Only records of streams starting with this prefix. */
  streamPrefix?: string;
}

export interface SubscribeOptions {
  fromPosition: number;
  streamPrefix?: string;
}

export interface LogStore {
  append(streamId: string, records: NewRecord[], options: AppendOptions): Promise<AppendResult>;
  readStream(streamId: string, options?: ReadOptions): Promise<StoredRecord[]>;
  /**
   * The contents of a stream's records from a revision on, at most `maxCount` (`readStream` without what the
   * store assigned): the cheapest read, for folds, which read a long stream in pages.
   */
  readStreamContent(streamId: string, fromRevision?: number, maxCount?: number): Promise<RecordContent[]>;
  readAll(options: ReadAllOptions): Promise<StoredRecord[]>;
  /** `readAll` without record ids, revisions and tags: the cheapest read of the log, for rebuilds. */
  readAllContent(options: ReadAllOptions): Promise<PositionedRecordContent[]>;
  /** Records carrying `tag`, in log order. */
  readByTag(tag: string): Promise<StoredRecord[]>;
  /** Highest position a reader may safely have seen. */
  headPosition(): Promise<number>;
  /**
   * The last committed record of every non-empty stream whose id starts with `streamPrefix`, sorted by
   * stream id (code unit order). Streams are listed as readStream sees them: committed, not only the safe prefix.
   */
  streamHeads(streamPrefix: string): Promise<StreamHead[]>;
  /** Position of the stream's last committed record; 0 for a stream with none. */
  streamPosition(streamId: string): Promise<number>;
  /**
   * Highest position handed out so far, committed or still in flight: no record has a higher one.
   * Ahead of headPosition while an older transaction is open (the safe head waits for it).
   */
  highestPosition(): Promise<number>;
  /** Catch-up from `fromPosition` (exclusive), then live, in position order, each record once. */
  subscribe(options: SubscribeOptions): Observable<StoredRecord>;
  /**
   * Removes a stream entirely: its records and their tag entries are gone from every read (readStream,
   * readAll, readByTag, streamHeads, streamPosition, subscriptions from an earlier position), and the stream
   * is empty (revision -1) again: an append starts it from revision 0, and record ids it had are new again.
   * Positions are never handed out twice. Waits for an append to the stream in flight. Idempotent: a
   * stream without records answers `{records: 0, position: 0}`.
   */
  deleteStream(streamId: string): Promise<DeletedStream>;
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

/** Some, but not all, record ids of an append were already in the stream. */
export class IdempotencyConflictError extends Error {
  constructor(readonly streamId: string) {
    super(`stream ${streamId}: append partially overlaps records already written`);
    this.name = 'IdempotencyConflictError';
  }
}
