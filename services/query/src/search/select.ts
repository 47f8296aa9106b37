import type { ItemKind, ScoredCandidate, SearchItem } from './items';

/**
 * Packing of one cut's ranked items under `k` and a token budget (SPEC §4 search), pure.
 *
 * What is taken, in priority order: events first, then the evidence layers below them,
 * facts, then the mentions that evidence facts, then episodes (aggregations for display,
 * never evidence). The answer lists what was taken in rank order (SPEC: "ranked items").
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
 * Packs a ranked list (score, highest first, any kinds) as an auditable subgraph. Priority: events,
 * then the minimal evidence closure, the facts the top `k` events include, then
 * the mentions that evidence the taken facts, each ahead of the other items of its kind;
 * episodes last; within those groups the ranked order holds. Greedy: an item is taken when
 * its kind has fewer than `k` items and it fits in what is left of the budget; one that does
 * not fit is skipped and smaller ones after it are still tried. The total never exceeds the
 * budget and is the sum of the items' tokens. The taken items are answered in ranked order.
 */
export function packEvidence(ranked: readonly ScoredCandidate[], options: PackOptions, counter: TokenCounter): Packed {
  const ofKind = (kind: ItemKind) => ranked.filter((c) => c.kind === kind);
  const key = (kind: string, id: string) => `${kind}\u0000${id}`;
  const events = ofKind('event');
  const closureFirst = (items: ScoredCandidate[], from: readonly ScoredCandidate[], kind: ItemKind) => {
    const wanted = new Map<string, number>();
    for (const source of from)
      for (const e of source.evidence) if (e.kind === kind && !wanted.has(key(e.kind, e.id))) wanted.set(key(e.kind, e.id), wanted.size);
    const inClosure = items
      .filter((c) => wanted.has(key(c.kind, c.id)))
      .sort((a, b) => wanted.get(key(a.kind, a.id))! - wanted.get(key(b.kind, b.id))!);
    return [...inClosure, ...items.filter((c) => !wanted.has(key(c.kind, c.id)))];
  };
  const facts = closureFirst(ofKind('fact'), events.slice(0, options.k), 'fact');
  const mentions = closureFirst(ofKind('mention'), facts.slice(0, options.k), 'mention');
  const taken = takeInOrder([...events, ...facts, ...mentions, ...ofKind('episode')], options, counter);
  const items = ranked.filter((c) => taken.has(c));
  return { items: items.map((c) => toItem(c, taken.get(c)!)), tokens: [...taken.values()].reduce((sum, t) => sum + t, 0) };
}

/** The candidates taken, with their token counts. */
function takeInOrder(ordered: readonly ScoredCandidate[], options: PackOptions, counter: TokenCounter): Map<ScoredCandidate, number> {
  const perKind = new Map<ItemKind, number>();
  const taken = new Map<ScoredCandidate, number>();
  let total = 0;
  for (const candidate of ordered) {
    const count = perKind.get(candidate.kind) ?? 0;
    if (count >= options.k) continue;
    const left = options.tokenBudget === undefined ? Number.POSITIVE_INFINITY : options.tokenBudget - total;
    if (left !== Number.POSITIVE_INFINITY && counter.lowerBound !== undefined && counter.lowerBound(candidate.text) > left) continue;
    const tokens = counter.count(candidate.text);
    if (tokens > left) continue;
    taken.set(candidate, tokens);
    total += tokens;
    perKind.set(candidate.kind, count + 1);
  }
  return taken;
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
