import { memoryStreamId } from '@memotrace/memory-log';
import type { PoolClient } from 'pg';
import type { ProjectedRecord } from './contract';

/** Whether the log records its stream deletions in this database (the PostgreSQL log does, in `mt_stream_deletions`). */
export async function logsStreamDeletions(db: Pick<PoolClient, 'query'>): Promise<boolean> {
  const { rows } = await db.query<{ present: boolean }>(`SELECT to_regclass('mt_stream_deletions') IS NOT NULL AS present`);
  return rows[0]?.present === true;
}

/**
 * Which records of a batch belong to a memory deleted after they were read: a deletion's row says up
 * to which position the memory's records are gone, and they must not come back into a projection (a
 * memory written again after the deletion has its records above it). Asked in the batch's
 * transaction once it holds the checkpoint locks, which a deletion holds until it commits: a
 * deletion that committed while the batch waited is seen.
 */
export async function deletedRecords(
  tx: Pick<PoolClient, 'query'>,
  records: readonly ProjectedRecord[],
): Promise<(record: ProjectedRecord) => boolean> {
  const streams = [...new Set(records.map((record) => memoryStreamId(record.memoryId)))];
  const { rows } = await tx.query<{ stream_id: string; position: string | number }>(
    'SELECT stream_id, max(position) AS position FROM mt_stream_deletions WHERE stream_id = ANY($1::text[]) GROUP BY stream_id',
    [streams],
  );
  if (rows.length === 0) return () => false;
  const deletedThrough = new Map(rows.map((row) => [row.stream_id, Number(row.position)]));
  return (record) => record.position <= (deletedThrough.get(memoryStreamId(record.memoryId)) ?? 0);
}
