import type { Cut } from '@memotrace/domain';
import { analyze } from './analyze';
import { cl100k } from './cl100k';
import type { CutItems } from './cut-items';
import { embeddedRecall } from './embedded-recall';
import type { SearchItem } from './items';
import { type RankingOptions, rankItems } from './rank-hybrid';
import type { RecallBackend, RecallRequest } from './recall-backend';
import { type TokenCounter, packRanked, saidOnce } from './select';
import { type TemporalIntent, type TimeInterval, itemInterval, parseTemporalIntent } from './temporal-intent';

export interface SearchInput {
  query: string;
  /** Cap on the items of each kind. */
  k: number;
  tokenBudget?: number | undefined;
}

export interface SearchResult {
  cut: Cut;
  items: SearchItem[];
  tokens: number;
  /** Items of the cut ranked by BM25 alone because their text has no vector yet; absent when search uses no vectors. */
  unembedded?: number;
}

export interface SearchDeps {
  /** Where hits come from (default: the embedded backend, BM25 only). */
  recall?: RecallBackend;
  /** What the read has to see of the log (the route's read models' position), passed on to the recall backend. */
  written?: Pick<RecallRequest, 'position' | 'readYourWrites'>;
  ranking?: RankingOptions;
}

/**
 * The search pipeline (SPEC §4) over the items visible in one cut (nothing
 * outside the cut is ever a candidate, so nothing recorded after `recordedAt` can be
 * returned or influence the ranking, not even through vectors or expansion): hybrid
 * recall; temporal intent relative to the cut's reference time; graph expansion; an item that says
 * nothing an item above it does not is left out; then `k` and the token budget cut the ranked list
 * without reordering it (SPEC 5.0).
 */
export async function searchMemory(
  items: CutItems,
  input: SearchInput,
  counter: TokenCounter = cl100k(),
  deps: SearchDeps = {},
): Promise<SearchResult> {
  const { cut } = items;
  if (analyze(input.query).length === 0) return { cut, items: [], tokens: 0 };
  const recall = await (deps.recall ?? BM25_ONLY).recall({ query: input.query, items, ...deps.written });
  const reference = referenceTime(cut);
  const intent = resolveIntent(parseTemporalIntent(input.query, new Date(reference)), items);
  const ranked = rankItems(
    items,
    recall,
    { reference, intent, queryWords: new Set(input.query.toLowerCase().match(/\p{L}+/gu) ?? []) },
    deps.ranking,
  );
  const packed = packRanked(saidOnce(ranked), { k: input.k, tokenBudget: input.tokenBudget }, counter);
  return recall.unembedded === undefined ? { cut, ...packed } : { cut, ...packed, unembedded: recall.unembedded };
}

const BM25_ONLY = embeddedRecall(undefined);

/** The time a query's "last week" is relative to: the cut's valid time, else its record time. */
export function referenceTime(cut: Cut): number {
  return Date.parse(cut.validAt === '*' ? cut.recordedAt : cut.validAt);
}

/**
 * "before/after <words>": the timed item that matches the words best (BM25) anchors the
 * interval at its start, that instant included on both sides: a mention is dated when
 * it was said, so what was said together with the anchor can be about before or after it.
 */
export function resolveIntent(intent: TemporalIntent | null, items: CutItems): TimeInterval | null {
  if (intent === null) return null;
  if (intent.kind === 'interval') return intent.interval;
  const [best] = items.bm25(intent.anchor, { limit: 1, timedOnly: true });
  const anchor = best === undefined ? null : itemInterval(items.candidate(best.key)!);
  if (anchor === null) return null;
  return intent.relation === 'before' ? { from: Number.NEGATIVE_INFINITY, to: anchor.from + 1 } : { from: anchor.from, to: Number.POSITIVE_INFINITY };
}

/**
 * Builds what every search needs once per process (the token counter's rank table, the time
 * expression parser's first parses), so the first search after a start does not pay for it.
 * V8 compiles a regular expression to machine code on its second use, so chrono's second parse
 * costs as much as its first: both happen here.
 */
export function warmSearch(): void {
  cl100k().count('warm');
  for (let i = 0; i < 2; i++) parseTemporalIntent('last Saturday', new Date(0));
}
