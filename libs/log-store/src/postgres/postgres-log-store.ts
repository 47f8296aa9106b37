import { inTransaction } from '@memotrace/postgres';
import type pg from 'pg';
import { Observable, type Subscriber } from 'rxjs';
import {
  byStreamId,
  type AppendOptions,
  type AppendResult,
  type DeletedStream,
  type RecordContent,
  type RecordMetadata,
  type LogStore,
  type NewRecord,
  type PositionedRecordContent,
  type ReadAllOptions,
  type ReadOptions,
  type StoredRecord,
  type StreamHead,
  type SubscribeOptions,
} from '../port';
import { appendRecords } from './append';
import { deleteStreamIn } from './delete-stream';
import {
  EVENT_COLUMNS,
  HEAD_POSITION,
  LOG_PAGE_PLANNER_SETTINGS,
  assertAscending,
  READ_ALL_CONTENT_PAGE,
  READ_ALL_PAGE,
  STREAM_RECORD_COLUMNS,
  toStoredRecord,
  type RecordTuple,
} from './rows';
import { subscribeToAll } from './subscription';

export interface PostgresLogStoreOptions {
  /** End the pool in close(). Default false: the pool belongs to the caller. */
  ownsPool?: boolean;
  /** Rows per query for subscription catch-up. */
  batchSize?: number;
  /** Rows per query for readStream (default 50,000: a replay reads whole streams; small pages cost a round trip each). */
  streamPageSize?: number;
  /** Fallback poll of live subscriptions. */
  pollIntervalMs?: number;
}

/**
 * Record store on the mt_events schema (see migrations.ts). readStream and readByTag read
 * committed rows directly (read-your-writes for command handlers); readAll, headPosition and
 * subscribe only see the safe prefix of the log, so positions can be used as resume cursors.
 */
export class PostgresLogStore implements LogStore {
  private readonly batchSize: number;
  private readonly streamPageSize: number;
  private readonly pollIntervalMs: number;
  private readonly cleanups = new Set<Promise<void>>();
  private readonly subscribers = new Set<Subscriber<StoredRecord>>();
  private closing: Promise<void> | undefined;

  constructor(
    private readonly pool: pg.Pool,
    private readonly options: PostgresLogStoreOptions = {},
  ) {
    this.batchSize = options.batchSize ?? 1000;
    this.streamPageSize = options.streamPageSize ?? 50_000;
    this.pollIntervalMs = options.pollIntervalMs ?? 500;
  }

  append(streamId: string, records: NewRecord[], options: AppendOptions): Promise<AppendResult> {
    return appendRecords(this.pool, streamId, records, options);
  }

  async readStream(streamId: string, options: ReadOptions = {}): Promise<StoredRecord[]> {
    const rows = await this.streamRows<RecordTuple>(
      STREAM_RECORD_COLUMNS,
      streamId,
      options.fromRevision ?? 0,
      options.maxCount ?? Number.POSITIVE_INFINITY,
    );
    return rows.map((row) => toStoredRecord(row, streamId));
  }

  async readStreamContent(streamId: string, fromRevision = 0, maxCount = Number.POSITIVE_INFINITY): Promise<RecordContent[]> {
    // Three columns, no tags, ids or numbers to decode: cheaper than readStream's rows.
    const rows = await this.streamRows<[string, unknown, RecordMetadata]>('e.type, e.data, e.metadata', streamId, fromRevision, maxCount);
    return rows.map(([type, data, metadata]) => ({ type, data, metadata }));
  }

  /** A stream's rows from a revision on, at most `limit`, in pages of streamPageSize (revisions are consecutive). */
  private async streamRows<Row extends unknown[]>(columns: string, streamId: string, fromRevision: number, limit: number): Promise<Row[]> {
    const all: Row[] = [];
    let from = Math.max(fromRevision, 0);
    while (all.length < limit) {
      const pageSize = Math.min(this.streamPageSize, limit - all.length);
      const { rows } = await this.pool.query<Row>({
        text: `SELECT ${columns} FROM mt_events e WHERE e.stream_id = $1 AND e.revision >= $2 ORDER BY e.revision LIMIT $3`,
        values: [streamId, from, pageSize],
        rowMode: 'array',
      });
      for (const row of rows) all.push(row);
      if (rows.length < pageSize) break;
      from += rows.length;
    }
    return all;
  }

  async readAll(options: ReadAllOptions): Promise<StoredRecord[]> {
    return (await this.readPage(options.fromPosition, options.maxCount, options.streamPrefix)).records;
  }

  async readAllContent(options: ReadAllOptions): Promise<PositionedRecordContent[]> {
    const rows = await queryLogPage<[number | string | null, string, string, unknown, RecordMetadata]>(this.pool, READ_ALL_CONTENT_PAGE, options);
    const contents: PositionedRecordContent[] = [];
    let previous = options.fromPosition;
    for (const [position, streamId, type, data, metadata] of rows) {
      if (position === null) continue;
      assertAscending(previous, (previous = Number(position)));
      contents.push({ streamId, position: previous, type, data, metadata });
    }
    return contents;
  }

  async readByTag(tag: string): Promise<StoredRecord[]> {
    const { rows } = await this.pool.query<RecordTuple>({
      text: `SELECT ${EVENT_COLUMNS} FROM mt_event_tags t JOIN mt_events e ON e.position = t.position WHERE t.tag = $1 ORDER BY t.position`,
      values: [tag],
      rowMode: 'array',
    });
    return rows.map((row) => toStoredRecord(row));
  }

  async headPosition(): Promise<number> {
    const { rows } = await this.pool.query<{ position: number | string }>(HEAD_POSITION);
    return rows[0] ? Number(rows[0].position) : 0;
  }

  async streamHeads(streamPrefix: string): Promise<StreamHead[]> {
    // mt_streams holds one row per stream with its revision (written by append in the same transaction):
    // one row per stream to scan, then one probe of the (stream_id, revision) key each, whatever the log's length.
    const { rows } = await this.pool.query<[string, number | string, number | string, RecordMetadata]>({
      text: `SELECT s.stream_id, s.revision, e.position, e.metadata
             FROM mt_streams s JOIN mt_events e ON e.stream_id = s.stream_id AND e.revision = s.revision
             WHERE starts_with(s.stream_id, $1::text)`,
      values: [streamPrefix],
      rowMode: 'array',
    });
    return rows
      .map(([streamId, revision, position, metadata]) => ({ streamId, revision: Number(revision), position: Number(position), metadata }))
      .sort(byStreamId);
  }

  async streamPosition(streamId: string): Promise<number> {
    // Named: every read of a memory asks it, and a plan made once per connection serves any stream.
    const { rows } = await this.pool.query<{ position: number | string }>({
      name: 'mt_stream_position',
      text: 'SELECT position FROM mt_events WHERE stream_id = $1 ORDER BY revision DESC LIMIT 1',
      values: [streamId],
    });
    return rows[0] ? Number(rows[0].position) : 0;
  }

  async highestPosition(): Promise<number> {
    // The sequence, not the rows: a reserved position's transaction may not have committed yet.
    const { rows } = await this.pool.query<{ position: number | string }>(
      'SELECT CASE WHEN is_called THEN last_value ELSE 0 END AS position FROM mt_events_position_seq',
    );
    return Number(rows[0]!.position);
  }

  subscribe(options: SubscribeOptions): Observable<StoredRecord> {
    const observable = subscribeToAll(
      {
        readPage: (from, max, prefix) => this.readPage(from, max, prefix),
        listenerConfig: this.pool.options,
        batchSize: this.batchSize,
        pollIntervalMs: this.pollIntervalMs,
        onCleanup: (done) => {
          const tracked = done.finally(() => this.cleanups.delete(tracked));
          this.cleanups.add(tracked);
        },
      },
      options,
    );
    // Track live subscribers so close() can complete them.
    return new Observable<StoredRecord>((subscriber) => {
      if (this.closing) {
        subscriber.error(new Error('record store is closed'));
        return;
      }
      this.subscribers.add(subscriber);
      const inner = observable.subscribe(subscriber);
      return () => {
        this.subscribers.delete(subscriber);
        inner.unsubscribe();
      };
    });
  }

  deleteStream(streamId: string): Promise<DeletedStream> {
    return inTransaction(this.pool, (client) => deleteStreamIn(client, streamId));
  }

  /** Completes live subscriptions, waits until their connections are closed, ends an owned pool. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      for (const subscriber of [...this.subscribers]) subscriber.complete();
      await Promise.all([...this.cleanups]);
      if (this.options.ownsPool) await this.pool.end();
    })();
    return this.closing;
  }

  private async readPage(fromPosition: number, maxCount: number, streamPrefix: string | undefined) {
    const rows = await queryLogPage<RecordTuple>(this.pool, READ_ALL_PAGE, { fromPosition, maxCount, streamPrefix });
    const records: StoredRecord[] = [];
    let previous = fromPosition;
    for (const row of rows) {
      if (row[0] === null) continue;
      const record = toStoredRecord(row);
      assertAscending(previous, (previous = record.position));
      records.push(record);
    }
    return { head: Number(rows[0]?.[8] ?? 0), visibleHead: Number(rows[0]?.[9] ?? 0), records };
  }
}

/**
 * Runs a log page query (READ_ALL_PAGE, READ_ALL_CONTENT_PAGE; maxCount checked) as one ordered scan of the position
 * index, whatever the planner estimates. Its estimates go wrong exactly when pages matter most: on
 * a log growing faster than autovacuum analyzes it (no column statistics), the stream-prefix filter
 * and the head bound get default guesses far from the truth, so it would plan a bitmap scan of
 * every record after the cursor plus a sort, per page: a live projector far behind would spend so
 * long on each page that it only falls further behind. The index scan reads only the page (and the rows
 * of other streams between).
 */
function queryLogPage<Row extends unknown[]>(pool: pg.Pool, text: string, { fromPosition, maxCount, streamPrefix }: ReadAllOptions): Promise<Row[]> {
  if (!Number.isInteger(maxCount) || maxCount <= 0) throw new RangeError(`maxCount must be a positive integer, got ${maxCount}`);
  const values = [fromPosition, maxCount, streamPrefix ?? null];
  return inTransaction(
    pool,
    async (client) => (await client.query<Row>({ text, values, rowMode: 'array' })).rows,
    `BEGIN; ${LOG_PAGE_PLANNER_SETTINGS}`,
  );
}
