import { memoryStreamId } from '@memotrace/memory-log';
import { projectedPosition } from '@memotrace/projection';
import { READ_MODELS_PROJECTION } from '@memotrace/read-models';
import { SEARCH_INDEX_PROJECTION } from '@memotrace/search-index';
import type { Pool } from 'pg';

/**
 * A write's response carries the memory's position (its log's length); projection
 * checkpoints are log positions. These translate one into the other and say how far
 * each projection has got.
 */
export async function logPositions(pool: Pool, memoryId: string, memoryPositions: readonly number[]): Promise<number[]> {
  if (memoryPositions.length === 0) return [];
  const { rows } = await pool.query<{ i: string; position: string }>(
    `SELECT k.i, e.position FROM unnest($1::bigint[]) WITH ORDINALITY AS k(revision, i)
       JOIN mt_events e ON e.stream_id = $2 AND e.revision = k.revision
      ORDER BY k.i`,
    [memoryPositions.map((p) => p - 1), memoryStreamId(memoryId)],
  );
  if (rows.length !== memoryPositions.length) throw new Error(`${memoryPositions.length - rows.length} positions of ${memoryId} are not in the log`);
  return rows.map((r) => Number(r.position));
}

export function readModelsAt(pool: Pool): Promise<number> {
  return projectedPosition(pool, READ_MODELS_PROJECTION);
}

/** Events between a log position and the search index's checkpoint: the embedding backlog. */
export async function embeddingBacklog(pool: Pool, logPosition: number): Promise<number> {
  return Math.max(0, logPosition - (await projectedPosition(pool, SEARCH_INDEX_PROJECTION)));
}
