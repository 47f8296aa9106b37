import { termSet } from './analyze';
import type { ItemKind } from '@memotrace/domain';
import { type ScoredCandidate, type SearchItem, answeredText } from './items';

/**
 * Packing of one cut's ranked items under `k` and a token budget (SPEC §4 search, 5.0), pure.
 * Packing only cuts the ranked list: it never reorders it, so the items of a kind answered
 * with a smaller `k` or budget are always taken from the same ranking.
 */
export interface TokenCounter {
  count(text: string): number;
  /** Optional cheap lower bound of `count(text)`, used to skip items that cannot fit. */
  lowerBound?(text: string): number;
}

export interface PackOptions {
  /** Cap on the number of items of each kind. */
  k: number;
  /** Cap on the total tokens, when given. */
  tokenBudget?: number | undefined;
}

export interface Packed {
  items: SearchItem[];
  tokens: number;
}

/**
 * Walks the ranked list (score, highest first, any kinds) best first and takes an item when
 * its kind has fewer than `k` items and its answered text fits in what is left of the budget;
 * one that does not fit is skipped and the smaller ones after it are still tried, so the best
 * items that fit come first and the rest of the budget is filled with the next best. The total
 * never exceeds the budget and is the sum of the items' tokens.
 */
export function packRanked(ranked: readonly ScoredCandidate[], options: PackOptions, counter: TokenCounter): Packed {
  const perKind = new Map<ItemKind, number>();
  const items: SearchItem[] = [];
  let total = 0;
  for (const candidate of ranked) {
    const count = perKind.get(candidate.kind) ?? 0;
    if (count >= options.k) continue;
    const text = answeredText(candidate);
    const left = options.tokenBudget === undefined ? Number.POSITIVE_INFINITY : options.tokenBudget - total;
    if (left !== Number.POSITIVE_INFINITY && counter.lowerBound !== undefined && counter.lowerBound(text) > left) continue;
    const tokens = counter.count(text);
    if (tokens > left) continue;
    items.push(toItem(candidate, text, tokens));
    total += tokens;
    perKind.set(candidate.kind, count + 1);
  }
  return { items, tokens: total };
}

/**
 * The ranked list without a fact that says nothing an item it is linked to, ranked above it, does not say:
 * every word of its text (as the index reads words) is a word of the turn it cites or of the event that
 * includes it (a statement below the event that says it with its date). A budget is never spent on the same
 * words twice; texts that each say something of their own (a turn and a statement derived from it) both
 * stay, and so does every mention, event and episode. A ranking step, before `k` and the budget cut the
 * list: it never depends on them.
 */
export function saidOnce<C extends ScoredCandidate>(ranked: readonly C[]): C[] {
  const kept: C[] = [];
  // The texts of the kept mentions and events, analysed only when a fact below asks (most never are).
  const said = new Map<string, string>();
  // The texts of each kept event, by the facts it includes: a fact's sayers are found without a walk of the kept list.
  const includedBy = new Map<string, string[]>();
  for (const candidate of ranked) {
    if (candidate.kind === 'fact') {
      const sayers = [
        ...candidate.evidence.flatMap((e) => (e.kind === 'mention' ? (said.get(`mention\u0000${e.id}`) ?? []) : [])),
        ...(includedBy.get(candidate.id) ?? []),
      ];
      if (sayers.length > 0 && saysAll(sayers, termSet(candidate.text))) continue;
    } else if (candidate.kind === 'mention' || candidate.kind === 'event') {
      said.set(`${candidate.kind}\u0000${candidate.id}`, candidate.text);
      if (candidate.kind === 'event') {
        for (const e of candidate.evidence) if (e.kind === 'fact') includedBy.set(e.id, [...(includedBy.get(e.id) ?? []), candidate.text]);
      }
    }
    kept.push(candidate);
  }
  return kept;
}

/** Whether one of the texts has every one of the words (none: nothing is said). */
function saysAll(texts: readonly string[], words: ReadonlySet<string>): boolean {
  if (words.size === 0) return false;
  return texts.some((text) => {
    const above = termSet(text);
    for (const word of words) if (!above.has(word)) return false;
    return true;
  });
}

/** Fixed key order, optional time fields only when present. */
function toItem(c: ScoredCandidate, text: string, tokens: number): SearchItem {
  return {
    kind: c.kind,
    id: c.id,
    text,
    score: c.score,
    tokens,
    recordedFrom: c.recordedFrom,
    ...(c.validFrom !== undefined ? { validFrom: c.validFrom } : {}),
    ...(c.validTo !== undefined ? { validTo: c.validTo } : {}),
    ...(c.occurredAt !== undefined ? { occurredAt: c.occurredAt } : {}),
    evidence: c.evidence.map((e) => ({ kind: e.kind, id: e.id })),
  };
}
