import type pg from 'pg';
import {
  IdempotencyConflictError,
  WrongExpectedRevisionError,
  type AppendResult,
  type ExpectedRevision,
  type NewEvent,
} from '../port';

export const NOTIFY_CHANNEL = 'mt_events';

// Per-stream lock. An advisory lock rather than SELECT ... FOR UPDATE because row locks
// assign a transaction id, which must happen inside mt_reserve_positions.
const LOCK_STREAM = "SELECT pg_advisory_xact_lock(hashtextextended('mt_stream:' || $1, 0))";

const READ_STATE = `
  SELECT coalesce((SELECT revision FROM mt_streams WHERE stream_id = $1), -1) AS revision,
         count(*) AS existing,
         max(position) AS last_position
  FROM mt_events WHERE stream_id = $1 AND event_id = ANY($2::uuid[])`;

const RESERVE = 'SELECT mt_reserve_positions($1) AS positions';

// The whole batch in one statement: events, tag index, stream revision, wake-up.
const WRITE = `
  WITH batch AS (
    SELECT b.ord, (b.doc->>'eventId')::uuid AS event_id, b.doc->>'type' AS type,
           b.doc->'data' AS data, b.doc->'metadata' AS metadata,
           ARRAY(SELECT jsonb_array_elements_text(b.doc->'tags')) AS tags
    FROM jsonb_array_elements($2::jsonb) WITH ORDINALITY AS b(doc, ord)
  ), inserted AS (
    INSERT INTO mt_events (position, stream_id, revision, event_id, type, data, metadata, tags)
    SELECT ($4::bigint[])[ord], $1, $3::bigint + ord, event_id, type, data, metadata, tags
    FROM batch ORDER BY ord
    RETURNING position, tags
  ), tagged AS (
    INSERT INTO mt_event_tags (tag, position)
    SELECT tag, position FROM inserted, unnest(inserted.tags) AS tag
  ), stream AS (
    INSERT INTO mt_streams (stream_id, revision) VALUES ($1, $3::bigint + $5::bigint)
    ON CONFLICT (stream_id) DO UPDATE SET revision = excluded.revision
  )
  SELECT pg_notify('${NOTIFY_CHANNEL}', '')`;

export async function appendEvents(
  pool: pg.Pool,
  streamId: string,
  events: NewEvent[],
  expected: ExpectedRevision,
): Promise<AppendResult> {
  validate(events);
  const client = await pool.connect();
  let released = false;
  try {
    await client.query('BEGIN');
    await client.query(LOCK_STREAM, [streamId]);
    const ids = events.map((event) => event.eventId);
    const state = (await client.query<{ revision: string; existing: string; last_position: string | null }>(READ_STATE, [streamId, ids])).rows[0]!;
    const current = Number(state.revision);
    const existing = Number(state.existing);

    // Idempotency before the revision check: a retry of a committed append succeeds even
    // though its expected revision is stale by now.
    if (existing === events.length) {
      await client.query('ROLLBACK');
      return { nextExpectedRevision: current, position: Number(state.last_position), idempotentRetry: true };
    }
    if (existing > 0) throw new IdempotencyConflictError(streamId);
    if (!matches(expected, current)) throw new WrongExpectedRevisionError(streamId, expected, current);

    const reserved = (await client.query<{ positions: (number | string)[] }>(RESERVE, [events.length])).rows[0]!.positions.map(Number);
    await client.query(WRITE, [streamId, JSON.stringify(events.map(toDocument)), current, reserved, events.length]);
    await client.query('COMMIT');
    return { nextExpectedRevision: current + events.length, position: reserved[reserved.length - 1]!, idempotentRetry: false };
  } catch (error) {
    const rolledBack = await client.query('ROLLBACK').then(
      () => true,
      (rollbackError: unknown) => {
        client.release(rollbackError instanceof Error ? rollbackError : true); // connection is unusable
        released = true;
        return false;
      },
    );
    throw rolledBack ? await translateUniqueViolation(error, client, streamId, expected) : error;
  } finally {
    if (!released) client.release();
  }
}

/** Defence in depth: the stream lock makes these impossible, but never leak a raw 23505. */
async function translateUniqueViolation(error: unknown, client: pg.PoolClient, streamId: string, expected: ExpectedRevision): Promise<unknown> {
  const { code, constraint } = error as { code?: string; constraint?: string };
  if (code !== '23505') return error;
  if (constraint === 'mt_events_stream_event_id_key') return new IdempotencyConflictError(streamId);
  if (constraint !== 'mt_events_stream_revision_key') return error;
  const { rows } = await client.query<{ revision: string }>('SELECT revision FROM mt_streams WHERE stream_id = $1', [streamId]);
  return new WrongExpectedRevisionError(streamId, expected, rows[0] ? Number(rows[0].revision) : -1);
}

function matches(expected: ExpectedRevision, current: number): boolean {
  if (expected === 'any') return true;
  if (expected === 'no_stream') return current === -1;
  return expected === current;
}

function validate(events: NewEvent[]): void {
  if (events.length === 0) throw new Error('append needs at least one event');
  if (new Set(events.map((event) => event.eventId.toLowerCase())).size !== events.length) {
    throw new Error('append batch contains the same event id twice');
  }
}

function toDocument(event: NewEvent) {
  return {
    eventId: event.eventId,
    type: event.type,
    data: event.data ?? null, // jsonb NOT NULL: undefined becomes JSON null
    metadata: event.metadata,
    tags: [...new Set(event.tags ?? [])],
  };
}
