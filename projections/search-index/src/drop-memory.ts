import type { PoolClient } from 'pg';
import { deleteOrphanVectors } from './erased-items';

/** What dropping a memory's search index removed. */
export interface DroppedSearchIndex {
  items: number;
  /** Hashes of the texts whose vectors went with it: no other item refers to them (a process may still hold them). */
  hashes: string[];
}

/**
 * Deletes the memory's search-index items in the caller's transaction, then the vectors of their
 * texts that no other item (of any memory) refers to any more: vectors are shared by text hash,
 * so a text another memory also has keeps its vector. Two statements: the second must see the
 * first's deletions.
 */
export async function dropMemorySearchIndex(client: Pick<PoolClient, 'query'>, memoryId: string): Promise<DroppedSearchIndex> {
  const present = await client.query<{ present: boolean }>(`SELECT to_regclass('si_items') IS NOT NULL AS present`);
  if (!present.rows[0]?.present) return { items: 0, hashes: [] };
  const items = await client.query<{ text_hash: string }>('DELETE FROM si_items WHERE memory_id = $1 RETURNING text_hash', [memoryId]);
  const candidates = [...new Set(items.rows.map((row) => row.text_hash))];
  if (candidates.length === 0) return { items: 0, hashes: [] };
  return { items: items.rowCount ?? 0, hashes: await deleteOrphanVectors(client, candidates) };
}
