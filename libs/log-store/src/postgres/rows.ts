import type { RecordMetadata, StoredRecord } from '../port';

/**
 * Log reads fetch rows as arrays (pg's rowMode 'array'), faster than row objects on a long read.
 * The stream id comes last so readStream, which already knows it, can leave it out.
 */
export const STREAM_RECORD_COLUMNS = 'e.position, e.revision, e.event_id, e.type, e.data, e.metadata, e.tags';
export const EVENT_COLUMNS = `${STREAM_RECORD_COLUMNS}, e.stream_id`;

/** A row of EVENT_COLUMNS (STREAM_RECORD_COLUMNS: no stream id), possibly followed by other columns. */
export type RecordTuple = [
  position: number | string,
  revision: number | string,
  recordId: string,
  type: string,
  data: unknown,
  metadata: RecordMetadata,
  tags: string[],
  streamId?: string,
  ...rest: unknown[],
];

/** Number() as well: callers may hand us a pool without the int8 parser of createPool. */
export function toStoredRecord(row: RecordTuple, streamId = row[7]!): StoredRecord {
  return {
    streamId,
    revision: Number(row[1]),
    position: Number(row[0]),
    recordId: row[2],
    type: row[3],
    data: row[4],
    metadata: row[5],
    tags: row[6],
  };
}

/**
 * Condition for rows every reader may see: written by transactions older than any still
 * running (see mt_reserve_positions for why this makes positions safe to resume from).
 */
export const SAFE_ROW = 'e.tx_id < pg_snapshot_xmin(pg_current_snapshot())';

/**
 * One page of the log after $1 (at most $2 rows, optional stream prefix $3) plus the safe head,
 * both from the same snapshot, as the two columns after EVENT_COLUMNS. Always returns at least
 * one row (record columns null when empty).
 * visible_head is the last committed position, safe or not: above the safe head it means a
 * still-running transaction (of any kind, in any database of the server) holds records back.
 * No ORDER BY outside the join: a LATERAL join runs as a nested loop, and its outer side is the
 * one head row, so the rows come in the inner ORDER BY's order; an outer sort of them would be
 * most of the query's time on large pages (and spill to disk on the largest). The readers check
 * the order (assertAscending).
 */
const readAllPage = (columns: string) => `
  SELECT ${columns}, h.head, h.visible_head
  FROM (
    SELECT coalesce((SELECT e.position FROM mt_events e WHERE ${SAFE_ROW} ORDER BY e.position DESC LIMIT 1), 0) AS head,
           coalesce((SELECT e.position FROM mt_events e ORDER BY e.position DESC LIMIT 1), 0) AS visible_head
  ) h
  LEFT JOIN LATERAL (
    SELECT * FROM mt_events e
    WHERE e.position > $1 AND e.position <= h.head AND ${SAFE_ROW}
      AND ($3::text IS NULL OR starts_with(e.stream_id, $3::text))
    ORDER BY e.position
    LIMIT $2
  ) e ON true`;
export const READ_ALL_PAGE = readAllPage(EVENT_COLUMNS);
/** What a projection reads of an record (PositionedRecordContent), then the two head columns. */
export const READ_ALL_CONTENT_PAGE = readAllPage('e.position, e.stream_id, e.type, e.data, e.metadata');

/** Set for a log page's transaction: its plan is the ordered index scan (see queryLogPage). */
export const LOG_PAGE_PLANNER_SETTINGS = 'SET LOCAL enable_bitmapscan = off; SET LOCAL enable_seqscan = off; SET LOCAL enable_sort = off';

export const HEAD_POSITION = `SELECT e.position FROM mt_events e WHERE ${SAFE_ROW} ORDER BY e.position DESC LIMIT 1`;

/** Guards the page order the page query's shape gives (see readAllPage). */
export function assertAscending(previous: number, position: number): void {
  if (position <= previous) throw new Error(`log page out of order: position ${position} after ${previous}`);
}
