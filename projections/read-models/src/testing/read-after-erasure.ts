import { type MemoryRecord, type SplitBatchRecord, erasureKey, erasureOf, evolve, initialState, splitBatch } from '@memotrace/domain';

/**
 * A log as the sealed log store reads it back once its erasures' keys are destroyed (SPEC §5.2):
 * every record with content sealed under a destroyed key comes with that content emptied (names
 * and texts null, lists empty, a literal dst null), before the erasure that lists its items. The
 * split is the domain's (`splitBatch`): the same subjects and key generations the log seals under.
 */
export function readAfterErasures(batches: readonly (readonly MemoryRecord[])[]): MemoryRecord[] {
  const state = initialState();
  const split: SplitBatchRecord[] = [];
  for (const batch of batches) {
    for (const record of batch) evolve(state, record);
    split.push(...splitBatch(batch, state));
  }
  // An erasure destroys the key generation it ends.
  const destroyed = new Set<string>();
  for (const { record } of split) {
    const erasure = erasureOf(record);
    if (erasure !== null) destroyed.add(`${erasureKey(erasure.subject)}\u0000${erasure.generation}`);
  }
  return split.map(({ record, split: { bare, content, subjects } }) => {
    const shredded = content !== null && subjects.some((s) => destroyed.has(`${erasureKey(s)}\u0000${s.generation}`));
    return shredded ? ({ ...record, data: bare } as MemoryRecord) : record;
  });
}
