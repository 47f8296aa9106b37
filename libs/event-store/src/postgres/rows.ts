import type { EventMetadata, StoredEvent } from '../port';

export const EVENT_COLUMNS = 'e.position, e.stream_id, e.revision, e.event_id, e.type, e.data, e.metadata, e.tags';

export interface EventRow {
  position: number | string;
  stream_id: string;
  revision: number | string;
  event_id: string;
  type: string;
  data: unknown;
  metadata: EventMetadata;
  tags: string[];
}

/** Number() as well: callers may hand us a pool without the int8 parser of createPool. */
export function toStoredEvent(row: EventRow): StoredEvent {
  return {
    streamId: row.stream_id,
    revision: Number(row.revision),
    position: Number(row.position),
    eventId: row.event_id,
    type: row.type,
    data: row.data,
    metadata: row.metadata,
    tags: row.tags,
  };
}

/**
 * Condition for rows every reader may see: written by transactions older than any still
 * running (see mt_reserve_positions for why this makes positions safe to resume from).
 */
export const SAFE_ROW = 'e.tx_id < pg_snapshot_xmin(pg_current_snapshot())';

/**
 * One page of the log after $1 (at most $2 rows, optional stream prefix $3) plus the safe head,
 * both from the same snapshot. Always returns at least one row (event columns null when empty).
 * visible_head is the last committed position, safe or not: above the safe head it means a
 * still-running transaction (of any kind, in any database of the server) holds events back.
 */
export const READ_ALL_PAGE = `
  SELECT h.head, h.visible_head, ${EVENT_COLUMNS}
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
  ) e ON true
  ORDER BY e.position`;

export const HEAD_POSITION = `SELECT e.position FROM mt_events e WHERE ${SAFE_ROW} ORDER BY e.position DESC LIMIT 1`;
