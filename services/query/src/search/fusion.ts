import type { RecallHit } from './recall-backend';

export interface RankedList {
  hits: readonly RecallHit[];
  weight: number;
}

/**
 * Weighted score fusion (a convex combination of normalised scores, Bruch et al. 2023):
 * score(d) = sum over lists of weight x score(d) / best score of the list. Dividing by
 * the list's best puts BM25 and cosine on one scale per query; unlike rank fusion it
 * keeps how far apart the hits score (a hit far ahead of the next stays ahead). Every
 * hit is kept; a score <= 0 adds nothing.
 */
export function scoreFusion(lists: readonly RankedList[]): Map<string, number> {
  const fused = new Map<string, number>();
  for (const { hits, weight } of lists) {
    const best = hits.reduce((max, hit) => Math.max(max, hit.score), 0);
    for (const hit of hits) fused.set(hit.key, (fused.get(hit.key) ?? 0) + (best > 0 ? (weight * Math.max(0, hit.score)) / best : 0));
  }
  return fused;
}
