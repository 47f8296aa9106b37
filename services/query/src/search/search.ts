import type { Cut, FactView, Instant, MemoryQueries } from '@memotrace/domain';
import { analyze } from './analyze';
import { cl100k } from './cl100k';
import { bm25Scores } from './bm25';
import { embeddedRecall } from './embedded-recall';
import { type Candidate, type SearchItem, episodeCandidate, eventCandidate, factCandidate, mentionCandidate } from './items';
import { type RankingOptions, rankItems } from './rank-hybrid';
import type { RecallBackend } from './recall-backend';
import { type TokenCounter, packEvidence } from './select';
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
}

export interface SearchDeps {
  /** Where hits come from (default: the embedded backend, BM25 only). */
  recall?: RecallBackend;
  ranking?: RankingOptions;
}

/**
 * The search pipeline (SPEC §4, issue 5): reads what is visible in the cut through
 * the read port and renders it (nothing outside the cut is ever a candidate, so
 * nothing recorded after `recordedAt` can be returned or influence the ranking,
 * not even through vectors or expansion); hybrid recall; temporal intent relative
 * to the cut's reference time; graph expansion; packing of the evidence closure.
 */
export async function searchMemory(
  queries: MemoryQueries,
  memoryId: string,
  cut: Cut,
  input: SearchInput,
  counter: TokenCounter = cl100k(),
  deps: SearchDeps = {},
): Promise<SearchResult> {
  if (analyze(input.query).length === 0) return { cut, items: [], tokens: 0 };
  const candidates = await candidatesInCut(queries, memoryId, cut);
  const recall = await (deps.recall ?? BM25_ONLY).recall({ memoryId, cut, query: input.query, candidates });
  const reference = referenceTime(cut);
  const intent = resolveIntent(parseTemporalIntent(input.query, new Date(reference)), candidates);
  const ranked = rankItems(candidates, recall, { reference, intent }, deps.ranking);
  const { items, tokens } = packEvidence(ranked, { k: input.k, tokenBudget: input.tokenBudget }, counter);
  return { cut, items, tokens };
}

const BM25_ONLY = embeddedRecall(undefined);

/** The time a query's "last week" is relative to: the cut's valid time, else its record time. */
export function referenceTime(cut: Cut): number {
  return Date.parse(cut.validAt === '*' ? cut.recordedAt : cut.validAt);
}

/** "before/after <words>": the time of the timed item that matches the words best (BM25) anchors the interval. */
export function resolveIntent(intent: TemporalIntent | null, candidates: readonly Candidate[]): TimeInterval | null {
  if (intent === null) return null;
  if (intent.kind === 'interval') return intent.interval;
  const timed = candidates.map((c) => ({ c, interval: itemInterval(c) })).filter((t) => t.interval !== null);
  const scores = bm25Scores(timed.map((t) => t.c.text), intent.anchor);
  let best = -1;
  scores.forEach((score, i) => {
    if (score > 0 && (best < 0 || score > scores[best]!)) best = i;
  });
  if (best < 0) return null;
  const anchor = timed[best]!.interval!;
  return intent.relation === 'before' ? { from: Number.NEGATIVE_INFINITY, to: anchor.from } : { from: anchor.to, to: Number.POSITIVE_INFINITY };
}

/** Every item visible in the cut: facts in the cut, visible events and episodes, mentions recorded by `recordedAt`. */
export async function candidatesInCut(queries: MemoryQueries, memoryId: string, cut: Cut): Promise<Candidate[]> {
  const [facts, events, episodes, mentions] = await Promise.all([
    queries.facts(memoryId, cut, {}),
    queries.events(memoryId, cut),
    queries.episodes(memoryId, cut),
    queries.mentions(memoryId, cut.recordedAt),
  ]);
  const names = await entityNames(queries, memoryId, cut.recordedAt, facts);
  const nameOf = (entityId: string) => names.get(entityId) ?? entityId;
  const visibleMentions = new Set(mentions.map((m) => m.mentionId));
  return [
    ...events.map(eventCandidate),
    ...facts.map((fact) => factCandidate(fact, nameOf, visibleMentions)),
    ...mentions.map(mentionCandidate),
    ...episodes.map(episodeCandidate),
  ];
}

const NAME_LOOKUPS_IN_FLIGHT = 8;

/** Names of the entities the facts name, as of `recordedAt`, each looked up once. */
async function entityNames(queries: MemoryQueries, memoryId: string, recordedAt: Instant, facts: readonly FactView[]): Promise<Map<string, string>> {
  const ids = new Set<string>();
  for (const fact of facts) {
    ids.add(fact.src);
    if (typeof fact.dst === 'string') ids.add(fact.dst);
  }
  const pending = [...ids];
  const names = new Map<string, string>();
  const worker = async () => {
    for (let id = pending.pop(); id !== undefined; id = pending.pop()) {
      const entity = await queries.entity(memoryId, id, recordedAt);
      if (entity !== null) names.set(id, entity.name);
    }
  };
  await Promise.all(Array.from({ length: Math.min(NAME_LOOKUPS_IN_FLIGHT, pending.length) }, worker));
  return names;
}
