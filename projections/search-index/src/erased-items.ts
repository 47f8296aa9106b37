import type { ProjectedRecord } from '@memotrace/projection';
import type { PoolClient } from 'pg';
import type { IndexedText } from './indexed-text';

/** An item an erasure of the batch names, with the erasure's log position. */
export interface ErasedItem {
  memoryId: string;
  kind: IndexedText['kind'];
  itemId: string;
  /** The erasure's: content the item had up to here is gone; what is written later is new content. */
  position: number;
}

/** The search items the batch's erasures name (entities have no text of their own: the facts naming them are listed). */
export function erasedItems(records: readonly ProjectedRecord[]): ErasedItem[] {
  const items: ErasedItem[] = [];
  for (const { memoryId, position, changes } of records) {
    for (const change of changes) {
      if (change.change !== 'erased') continue;
      for (const itemId of change.facts) items.push({ memoryId, kind: 'fact', itemId, position });
      for (const itemId of change.events) items.push({ memoryId, kind: 'event', itemId, position });
      for (const itemId of change.mentions) items.push({ memoryId, kind: 'mention', itemId, position });
    }
  }
  return items;
}

/** Whether an erasure of `items` removes the text `text` had (one at a later position names its item). */
export function erasedLater(items: readonly ErasedItem[]): (text: Pick<IndexedText, 'memoryId' | 'kind' | 'itemId' | 'position'>) => boolean {
  if (items.length === 0) return () => false;
  const key = (i: Pick<ErasedItem, 'memoryId' | 'kind' | 'itemId'>) => `${i.memoryId}\u0000${i.kind}\u0000${i.itemId}`;
  const last = new Map<string, number>();
  for (const item of items) last.set(key(item), Math.max(last.get(key(item)) ?? 0, item.position));
  return (text) => (last.get(key(text)) ?? 0) > text.position;
}

/**
 * Deletes the erased items' rows (those written up to their erasure). Returns the erased texts'
 * hashes: their vectors go once no row has them (`deleteOrphanVectors`), and caches forget them.
 */
export async function deleteErasedRows(tx: Pick<PoolClient, 'query'>, items: readonly ErasedItem[]): Promise<string[]> {
  if (items.length === 0) return [];
  const { rows } = await tx.query<{ text_hash: string }>(
    `DELETE FROM si_items i
      USING unnest($1::text[], $2::text[], $3::text[], $4::bigint[]) AS e(memory_id, kind, item_id, position)
      WHERE i.memory_id = e.memory_id AND i.kind = e.kind AND i.item_id = e.item_id AND i.position <= e.position
      RETURNING i.text_hash`,
    [items.map((i) => i.memoryId), items.map((i) => i.kind), items.map((i) => i.itemId), items.map((i) => i.position)],
  );
  return [...new Set(rows.map((r) => r.text_hash))];
}

/** Deletes the vectors of these texts (of every model) that no row has: a vector is derived from its text. Returns the hashes whose vectors went. */
export async function deleteOrphanVectors(tx: Pick<PoolClient, 'query'>, hashes: readonly string[]): Promise<string[]> {
  if (hashes.length === 0) return [];
  const { rows } = await tx.query<{ text_hash: string }>(
    `DELETE FROM si_vectors v WHERE v.text_hash = ANY($1::text[])
       AND NOT EXISTS (SELECT 1 FROM si_items i WHERE i.text_hash = v.text_hash)
     RETURNING v.text_hash`,
    [hashes],
  );
  return [...new Set(rows.map((row) => row.text_hash))];
}
