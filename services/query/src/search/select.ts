import { compareIds } from '@memotrace/domain';
import { bm25Scores } from './bm25';
import type { Candidate, ItemKind, ScoredCandidate, SearchItem } from './items';

/**
 * Ranking and packing of one cut's items (SPEC §4 search), pure.
 *
 * Order of the answer (and priority under a token budget): events first, then the
 * evidence layers below them, facts, then the mentions that evidence facts, then
 * episodes (aggregations for display, never evidence). Within a kind: BM25 score,
 * highest first, ties by id.
 */
export const KIND_ORDER: readonly ItemKind[] = ['event', 'fact', 'mention', 'episode'];

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

export function compareRanked(a: ScoredCandidate, b: ScoredCandidate): number {
  const byKind = KIND_ORDER.indexOf(a.kind) - KIND_ORDER.indexOf(b.kind);
  if (byKind !== 0) return byKind;
  if (a.score !== b.score) return b.score > a.score ? 1 : -1;
  return compareIds(a.id, b.id);
}

/** BM25 over the candidates' texts (the cut is the corpus); only matching items (score > 0), in answer order. */
export function rank(candidates: readonly Candidate[], query: string): ScoredCandidate[] {
  const scores = bm25Scores(
    candidates.map((c) => c.text),
    query,
  );
  return candidates
    .map((candidate, i) => ({ ...candidate, score: scores[i]! }))
    .filter((c) => c.score > 0 && Number.isFinite(c.score))
    .sort(compareRanked);
}

/**
 * Greedy packing in answer order: an item is taken when its kind has fewer than `k`
 * items and it fits in what is left of the budget; an item that does not fit is
 * skipped and smaller ones after it are still tried. The total never exceeds the
 * budget and is the sum of the items' tokens.
 */
export function pack(ranked: readonly ScoredCandidate[], options: PackOptions, counter: TokenCounter): Packed {
  return packInOrder([...ranked].sort(compareRanked), options, counter);
}

/**
 * Packing of a ranked list (best first, any kinds) as an auditable subgraph: events
 * first, then the minimal evidence closure, the facts the taken events include, then
 * the mentions that evidence the taken facts, each ahead of the other items of its
 * kind; episodes last. Within those groups the ranked order holds. Greedy as `pack`.
 */
export function packEvidence(ranked: readonly ScoredCandidate[], options: PackOptions, counter: TokenCounter): Packed {
  const ofKind = (kind: ItemKind) => ranked.filter((c) => c.kind === kind);
  const key = (kind: string, id: string) => `${kind}\u0000${id}`;
  const events = ofKind('event').slice(0, options.k);
  const closureFirst = (items: ScoredCandidate[], from: readonly ScoredCandidate[], kind: ItemKind) => {
    const wanted = new Map<string, number>();
    for (const source of from) for (const e of source.evidence) if (e.kind === kind && !wanted.has(key(e.kind, e.id))) wanted.set(key(e.kind, e.id), wanted.size);
    const inClosure = items.filter((c) => wanted.has(key(c.kind, c.id))).sort((a, b) => wanted.get(key(a.kind, a.id))! - wanted.get(key(b.kind, b.id))!);
    return [...inClosure, ...items.filter((c) => !wanted.has(key(c.kind, c.id)))];
  };
  const facts = closureFirst(ofKind('fact'), events, 'fact');
  const mentions = closureFirst(ofKind('mention'), facts.slice(0, options.k), 'mention');
  return packInOrder([...events, ...facts, ...mentions, ...ofKind('episode')], options, counter);
}

function packInOrder(ordered: readonly ScoredCandidate[], options: PackOptions, counter: TokenCounter): Packed {
  const taken = new Map<ItemKind, number>();
  const items: SearchItem[] = [];
  let total = 0;
  for (const candidate of ordered) {
    const count = taken.get(candidate.kind) ?? 0;
    if (count >= options.k) continue;
    const left = options.tokenBudget === undefined ? Number.POSITIVE_INFINITY : options.tokenBudget - total;
    if (left !== Number.POSITIVE_INFINITY && counter.lowerBound !== undefined && counter.lowerBound(candidate.text) > left) continue;
    const tokens = counter.count(candidate.text);
    if (tokens > left) continue;
    items.push(toItem(candidate, tokens));
    total += tokens;
    taken.set(candidate.kind, count + 1);
  }
  return { items, tokens: total };
}

/** Rank then pack: the whole search over one cut's candidates. */
export function searchCandidates(candidates: readonly Candidate[], query: string, options: PackOptions, counter: TokenCounter): Packed {
  return pack(rank(candidates, query), options, counter);
}

/** Fixed key order, optional time fields only when present. */
function toItem(c: ScoredCandidate, tokens: number): SearchItem {
  return {
    kind: c.kind,
    id: c.id,
    text: c.text,
    score: c.score,
    tokens,
    recordedFrom: c.recordedFrom,
    ...(c.validFrom !== undefined ? { validFrom: c.validFrom } : {}),
    ...(c.validTo !== undefined ? { validTo: c.validTo } : {}),
    ...(c.occurredAt !== undefined ? { occurredAt: c.occurredAt } : {}),
    evidence: c.evidence.map((e) => ({ kind: e.kind, id: e.id })),
  };
}
