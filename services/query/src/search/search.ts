import { type Cut, type Instant, type Tier, type TieredKind, salienceOf, tierKey } from '@memotrace/domain';
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
  /** The tiers searched (SPEC 5.4); default hot only. */
  tiers?: readonly Tier[] | undefined;
}

/** What search reads of the retrieval statistics and tiers (SPEC 5.4), for the items it ranked. */
export interface TierStats {
  /**
   * The statistics of those of `items` that have any, by `tierKey`: each item's tier now, and its retrieval
   * statistics as the memory's last consolidation saw them (`seen`).
   */
  stats(
    items: readonly { kind: TieredKind; id: string }[],
  ): Promise<ReadonlyMap<string, { tier: Tier; seen: { returned: number; lastReturnedAt: Instant | null } }>>;
}

const DAY_MS = 86_400_000;

const TIERED: ReadonlySet<string> = new Set<TieredKind>(['fact', 'event', 'mention']);

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
  /** Retrieval statistics and tiers; without them every item is hot and never returned before. */
  tiers?: TierStats;
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
  const stats = deps.tiers
    ? await deps.tiers.stats(ranked.flatMap((c) => (TIERED.has(c.kind) ? [{ kind: c.kind as TieredKind, id: c.id }] : [])))
    : new Map();
  const searched = new Set(input.tiers ?? ['hot']);
  const tierOf = (c: { kind: string; id: string }): Tier => stats.get(tierKey(c.kind, c.id))?.tier ?? 'hot';
  // Tiers leave items out before k and the budget cut the list: the ranking of what stays is unchanged.
  const inTiers = searched.size === 2 ? ranked : ranked.filter((c) => !TIERED.has(c.kind) || searched.has(tierOf(c)));
  const packed = packRanked(saidOnce(inTiers), { k: input.k, tokenBudget: input.tokenBudget }, counter);
  // Salience as of the cut's record time, to the day, from the statistics of the last consolidation: two searches of
  // one cut answer the same, however often the memory is searched in between (SPEC 5.0 asks answers to compare).
  const now = Math.floor(Date.parse(cut.recordedAt) / DAY_MS) * DAY_MS;
  const links = new Map(inTiers.map((c) => [tierKey(c.kind, c.id), c.evidence.length + (c.entities?.length ?? 0)]));
  const answered = packed.items.map((item) => {
    const seen = stats.get(tierKey(item.kind, item.id))?.seen;
    const salience = salienceOf(
      {
        assertedAt: item.recordedFrom,
        lastReturnedAt: seen?.lastReturnedAt ?? null,
        returned: seen?.returned ?? 0,
        confidence: null,
        links: links.get(tierKey(item.kind, item.id)) ?? 0,
      },
      now,
    );
    return TIERED.has(item.kind) ? { ...item, salience, tier: tierOf(item) } : { ...item, salience };
  });
  const answer = { cut, items: answered, tokens: packed.tokens };
  return recall.unembedded === undefined ? answer : { ...answer, unembedded: recall.unembedded };
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
