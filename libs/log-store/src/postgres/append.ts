import type pg from 'pg';
import {
  IdempotencyConflictError,
  WrongExpectedRevisionError,
  type AppendOptions,
  type AppendResult,
  type ExpectedRevision,
  type NewRecord,
} from '../port';

export const NOTIFY_CHANNEL = 'mt_events';

/**
 * Opens the transaction, takes the per-stream lock and reads the stream's revision in one round
 * trip (simple query protocol, so the stream id is inlined as an escaped literal). Each statement
 * gets its own snapshot under READ COMMITTED, so the revision is read after the lock is granted.
 * An advisory lock rather than SELECT ... FOR UPDATE because row locks assign a transaction id,
 * which must happen inside mt_reserve_positions.
 */
const begin = (client: pg.PoolClient, streamId: string) => {
  const literal = client.escapeLiteral(streamId);
  return `BEGIN;
    SELECT ${streamLock(client, streamId)};
    SELECT coalesce((SELECT revision FROM mt_streams WHERE stream_id = ${literal}), -1) AS revision`;
};

/** The per-stream transaction lock (an SQL expression) that appends, and a deletion of the stream, take first. */
export function streamLock(client: Pick<pg.ClientBase, 'escapeLiteral'>, streamId: string): string {
  return `pg_advisory_xact_lock(hashtextextended('mt_stream:' || ${client.escapeLiteral(streamId)}, 0))`;
}

/** Which of the batch's record ids the stream already has (only asked when the fast path cannot decide). */
const READ_EXISTING = `
  SELECT count(*) AS existing, max(position) AS last_position
  FROM mt_events WHERE stream_id = $1 AND event_id = ANY($2::uuid[])`;

/**
 * The whole batch in one statement: position reservation, records, tag index, stream revision,
 * wake-up. It runs as a named prepared statement (for a single record, planning this statement
 * costs about as much as executing it), and the batch arrives as one JSON document parsed once
 * by jsonb_to_recordset. Every write reads `reserved` first, so mt_reserve_positions runs before
 * anything assigns the transaction id (and raises if that order were ever broken). A repeated
 * record id fails the statement on mt_events_stream_event_id_key; the caller then classifies it.
 */
const WRITE = `
  WITH reserved AS MATERIALIZED (
    SELECT mt_reserve_positions($4::integer) AS positions
  ), batch AS (
    -- jsonb_to_recordset turns JSON null into SQL NULL: coalesce keeps null data as JSON null
    SELECT b.ord, b.event_id, b.type, coalesce(b.data, 'null') AS data, coalesce(b.metadata, 'null') AS metadata, b.tags
    FROM ROWS FROM (jsonb_to_recordset($2::jsonb) AS (event_id uuid, type text, data jsonb, metadata jsonb, tags text[]))
      WITH ORDINALITY AS b(event_id, type, data, metadata, tags, ord)
  ), inserted AS (
    INSERT INTO mt_events (position, stream_id, revision, event_id, type, data, metadata, tags)
    SELECT r.positions[b.ord], $1, $3::bigint + b.ord, b.event_id, b.type, b.data, b.metadata, b.tags
    FROM batch b CROSS JOIN reserved r
    ORDER BY b.ord
    RETURNING position, tags
  ), tagged AS (
    INSERT INTO mt_event_tags (tag, position)
    SELECT tag, position FROM inserted, unnest(inserted.tags) AS tag
  ), stream AS (
    INSERT INTO mt_streams (stream_id, revision) SELECT $1, $3::bigint + $4::bigint FROM reserved
    ON CONFLICT (stream_id) DO UPDATE SET revision = excluded.revision
  )
  SELECT (SELECT r.positions[$4::integer] FROM reserved r) AS last_position, pg_notify('${NOTIFY_CHANNEL}', '')`;

const EVENT_ID_KEY = 'mt_events_stream_event_id_key';

/**
 * Appends under the stream lock. Fast path (the expected revision matches): reserve and write
 * straight away, relying on the unique (stream_id, event_id) index to notice a repeated record id;
 * that costs nothing extra, where asking first would cost an index probe per record. Slow path
 * (the revision does not match, or the write hit a repeated id): look the ids up, because a
 * retry of a committed append must succeed as an idempotent retry even with a stale revision,
 * and a partial overlap is an IdempotencyConflictError, not a revision conflict. `alongside` runs after
 * the write, before the commit.
 */
export async function appendRecords(pool: pg.Pool, streamId: string, records: NewRecord[], options: AppendOptions): Promise<AppendResult> {
  const { expectedRevision: expected, alongside } = options;
  validate(records);
  const documents = JSON.stringify(records.map(toDocument));
  const ids = records.map((record) => record.recordId);
  let checkIdsFirst = false;
  for (;;) {
    const client = await pool.connect();
    let broken: Error | undefined;
    try {
      const [, , state] = (await client.query(begin(client, streamId))) as unknown as pg.QueryResult<{ revision: number | string }>[];
      const current = Number(state!.rows[0]!.revision);

      if (checkIdsFirst || !matches(expected, current)) {
        const found = (await client.query<{ existing: number | string; last_position: number | string | null }>(READ_EXISTING, [streamId, ids]))
          .rows[0]!;
        const existing = Number(found.existing);
        if (existing === records.length) {
          await client.query('ROLLBACK');
          return { nextExpectedRevision: current, position: Number(found.last_position), idempotentRetry: true };
        }
        if (existing > 0) throw new IdempotencyConflictError(streamId);
        if (!matches(expected, current)) throw new WrongExpectedRevisionError(streamId, expected, current);
      }

      try {
        const written = (
          await client.query<{ last_position: number | string }>({
            name: 'mt_append_write',
            text: WRITE,
            values: [streamId, documents, current, records.length],
          })
        ).rows[0]!;
        await alongside?.(client);
        await client.query('COMMIT');
        return { nextExpectedRevision: current + records.length, position: Number(written.last_position), idempotentRetry: false };
      } catch (error) {
        if (!checkIdsFirst && isUniqueViolation(error, EVENT_ID_KEY)) {
          // Some id is already in the stream: start over, asking which ones first.
          broken = await rollback(client);
          checkIdsFirst = true;
          continue;
        }
        throw error;
      }
    } catch (error) {
      broken ??= await rollback(client);
      throw await translateUniqueViolation(error, pool, streamId, expected);
    } finally {
      client.release(broken ?? false);
    }
  }
}

/** Rolls back; returns the error to release the connection with when it is unusable. */
async function rollback(client: pg.PoolClient): Promise<Error | undefined> {
  return client.query('ROLLBACK').then(
    () => undefined,
    (error: unknown) => (error instanceof Error ? error : new Error(String(error))),
  );
}

function isUniqueViolation(error: unknown, constraint: string): boolean {
  const { code, constraint: violated } = error as { code?: string; constraint?: string };
  return code === '23505' && violated === constraint;
}

/** Defence in depth: the stream lock makes these impossible, but never leak a raw 23505. */
async function translateUniqueViolation(error: unknown, pool: pg.Pool, streamId: string, expected: ExpectedRevision): Promise<unknown> {
  if (isUniqueViolation(error, EVENT_ID_KEY)) return new IdempotencyConflictError(streamId);
  if (!isUniqueViolation(error, 'mt_events_stream_revision_key')) return error;
  const { rows } = await pool.query<{ revision: number | string }>('SELECT revision FROM mt_streams WHERE stream_id = $1', [streamId]);
  return new WrongExpectedRevisionError(streamId, expected, rows[0] ? Number(rows[0].revision) : -1);
}

function matches(expected: ExpectedRevision, current: number): boolean {
  if (expected === 'any') return true;
  if (expected === 'no_stream') return current === -1;
  return expected === current;
}

function validate(records: NewRecord[]): void {
  if (records.length === 0) throw new Error('append needs at least one record');
  if (new Set(records.map((record) => record.recordId.toLowerCase())).size !== records.length) {
    throw new Error('append batch contains the same record id twice');
  }
}

/** One element of WRITE's jsonb_to_recordset input (keys are its column names). */
function toDocument(record: NewRecord) {
  return {
    event_id: record.recordId,
    type: record.type,
    data: record.data ?? null, // jsonb NOT NULL: undefined becomes JSON null
    metadata: record.metadata,
    tags: [...new Set(record.tags ?? [])],
  };
}
