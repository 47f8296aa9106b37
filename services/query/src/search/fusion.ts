import type { RecallHit } from './recall-backend';

export interface RankedList {
  hits: readonly RecallHit[];
  weight: number;
}

/**
 * Weighted reciprocal rank fusion (Cormack et al. 2009): score(d) = sum over lists of
 * weight / (k + rank(d)), rank from 1. Robust to the two lists' incomparable scales.
 */
export function reciprocalRankFusion(lists: readonly RankedList[], k = 60): Map<string, number> {
  const fused = new Map<string, number>();
  for (const { hits, weight } of lists) {
    hits.forEach((hit, i) => fused.set(hit.key, (fused.get(hit.key) ?? 0) + weight / (k + i + 1)));
  }
  return fused;
}
