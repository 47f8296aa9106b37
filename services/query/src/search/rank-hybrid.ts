import { compareIds } from '@memotrace/domain';
import type { CutItems } from './cut-items';
import { type ExpansionOptions, DEFAULT_EXPANSION, expand } from './expand';
import { reciprocalRankFusion } from './fusion';
import type { Candidate, ScoredCandidate } from './items';
import type { RecallResult } from './recall-backend';
import { type TimeInterval, itemInterval, overlaps } from './temporal-intent';

export interface RankingOptions {
  bm25Weight: number;
  vectorWeight: number;
  /** RRF's k: larger flattens the rank curve. */
  rrfK: number;
  /** Score factor of a fact version whose validity ended by the reference time. */
  supersededFactor: number;
  expansion: ExpansionOptions;
}

/** Tuned on the LoCoMo dev split only (docs/benchmarks.md). */
export const DEFAULT_RANKING: RankingOptions = { bm25Weight: 1, vectorWeight: 0.3, rrfK: 20, supersededFactor: 0.5, expansion: DEFAULT_EXPANSION };

export interface RankingContext {
  /** The cut's reference time, epoch ms. */
  reference: number;
  /** The interval the query's time expression asks for, if any. */
  intent: TimeInterval | null;
}

/**
 * Fuses the recall lists (RRF), ranks superseded fact versions below current ones,
 * expands along the item graph, then puts the items whose time overlaps the query's
 * intended interval first (TSM-style semantic-time reranking). Best first; ties by kind then id.
 */
export function rankItems(items: CutItems, recall: RecallResult, context: RankingContext, options: RankingOptions = DEFAULT_RANKING): ScoredCandidate[] {
  const fused = reciprocalRankFusion(
    [
      { hits: recall.bm25, weight: options.bm25Weight },
      { hits: recall.vector, weight: options.vectorWeight },
    ],
    options.rrfK,
  );
  for (const [key, score] of fused) {
    const c = items.candidate(key);
    if (c === undefined) fused.delete(key); // a backend may only name items of the cut
    else if (isSuperseded(c, context.reference)) fused.set(key, score * options.supersededFactor);
  }
  const scores = fused.size > 0 ? expand(fused, items, options.expansion) : fused;
  const ranked = [...scores].map(([key, score]) => ({ ...items.candidate(key)!, score }));
  const inIntent = (c: Candidate) => {
    if (context.intent === null) return 0;
    const interval = itemInterval(c);
    return interval !== null && overlaps(interval, context.intent) ? 1 : 0;
  };
  const tiers = new Map(ranked.map((c) => [c, inIntent(c)] as const));
  return ranked.sort((a, b) => tiers.get(b)! - tiers.get(a)! || b.score - a.score || a.kind.localeCompare(b.kind) || compareIds(a.id, b.id));
}

/** A fact version whose validity ended at or before the reference time (a later version or an end replaced it). */
export function isSuperseded(c: Candidate, reference: number): boolean {
  return c.kind === 'fact' && c.validTo !== undefined && c.validTo !== null && Date.parse(c.validTo) <= reference;
}
