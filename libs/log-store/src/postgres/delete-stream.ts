import type pg from 'pg';
import type { DeletedStream } from '../port';
import { streamLock } from './append';

/** Woken (payload: the stream id) when a deletion commits: processes holding copies of the stream drop them. */
export const STREAM_DELETED_CHANNEL = 'mt_stream_deleted';

/**
 * One statement: the stream's records, their tag entries (by the tags each record carries, so the tag
 * index is probed, not scanned), the stream's revision row, and a row of `mt_stream_deletions` saying up
 * to which position the stream's records are gone (what a projector holding records read earlier checks).
 */
const DELETE = `
  WITH gone AS (
    DELETE FROM mt_events WHERE stream_id = $1 RETURNING position, tags
  ), untagged AS (
    DELETE FROM mt_event_tags t USING gone g WHERE t.position = g.position AND t.tag = ANY (g.tags)
  ), stream AS (
    DELETE FROM mt_streams WHERE stream_id = $1
  ), summary AS (
    SELECT count(*) AS records, coalesce(max(position), 0) AS position FROM gone
  ), logged AS (
    INSERT INTO mt_stream_deletions (stream_id, position) SELECT $1, position FROM summary WHERE records > 0
  )
  SELECT records, position, CASE WHEN records > 0 THEN pg_notify('${STREAM_DELETED_CHANNEL}', $1) END AS notified FROM summary`;

/**
 * Deletes a stream inside the caller's transaction (which may delete copies of it in the same
 * commit): takes the stream's append lock first, so an append in flight finishes before and the
 * next one starts after, on an empty stream (revision -1).
 */
export async function deleteStreamIn(client: pg.ClientBase, streamId: string): Promise<DeletedStream> {
  await client.query(`SELECT ${streamLock(client, streamId)}`);
  const { rows } = await client.query<{ records: string | number; position: string | number }>(DELETE, [streamId]);
  return { records: Number(rows[0]!.records), position: Number(rows[0]!.position) };
}

/** A committed stream deletion, in commit order (`seq`). */
export interface StreamDeletion {
  seq: number;
  streamId: string;
  /** Every record of the stream at or below this position is gone. */
  position: number;
}

/** Deletions after `afterSeq`, oldest first. */
export async function streamDeletionsAfter(db: Pick<pg.Pool, 'query'>, afterSeq: number): Promise<StreamDeletion[]> {
  const { rows } = await db.query<{ seq: string | number; stream_id: string; position: string | number }>(
    'SELECT seq, stream_id, position FROM mt_stream_deletions WHERE seq > $1 ORDER BY seq',
    [afterSeq],
  );
  return rows.map((row) => ({ seq: Number(row.seq), streamId: row.stream_id, position: Number(row.position) }));
}

/** The last deletion's `seq` (0 before the first): where a watcher starting now begins. */
export async function lastStreamDeletion(db: Pick<pg.Pool, 'query'>): Promise<number> {
  const { rows } = await db.query<{ seq: string | number | null }>('SELECT max(seq) AS seq FROM mt_stream_deletions');
  return Number(rows[0]?.seq ?? 0);
}
