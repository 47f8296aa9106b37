import type { RecallHit } from './recall-backend';

export interface RankedList {
  hits: readonly RecallHit[];
  weight: number;
  /** The score that counts as nothing (default 0): a cosine list's scores sit in a narrow band far above 0. */
  floor?: number;
}

/**
 * Weighted score fusion (a convex combination of normalised scores, Bruch et al. 2023):
 * score(d) = sum over lists of weight x (score(d) - floor) / (best score of the list - floor).
 * Dividing by the list's best puts BM25 and cosine on one scale per query; unlike rank
 * fusion it keeps how far apart the hits score (a hit far ahead of the next stays ahead).
 * Every hit is kept; a score <= floor adds nothing.
 */
export function scoreFusion(lists: readonly RankedList[]): Map<string, number> {
  const fused = new Map<string, number>();
  for (const { hits, weight, floor = 0 } of lists) {
    const range = hits.reduce((max, hit) => Math.max(max, hit.score), floor) - floor;
    for (const hit of hits) fused.set(hit.key, (fused.get(hit.key) ?? 0) + (range > 0 ? (weight * Math.max(0, hit.score - floor)) / range : 0));
  }
  return fused;
}
