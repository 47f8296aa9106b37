import type { Cut, FactView, Instant, MemoryQueries } from '@memotrace/domain';
import { analyze } from './analyze';
import { cl100k } from './cl100k';
import { type Candidate, type SearchItem, episodeCandidate, eventCandidate, factCandidate, mentionCandidate } from './items';
import { type TokenCounter, searchCandidates } from './select';

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

/**
 * The embedded search backend: reads what is visible in the cut (SPEC §3.2) through
 * the read port, renders it, then ranks and packs it (./select, pure). Nothing
 * outside the cut is ever a candidate, so nothing recorded after `recordedAt` can
 * be returned or even influence the ranking.
 */
export async function searchMemory(queries: MemoryQueries, memoryId: string, cut: Cut, input: SearchInput, counter: TokenCounter = cl100k()): Promise<SearchResult> {
  if (analyze(input.query).length === 0) return { cut, items: [], tokens: 0 };
  const candidates = await candidatesInCut(queries, memoryId, cut);
  const { items, tokens } = searchCandidates(candidates, input.query, { k: input.k, tokenBudget: input.tokenBudget }, counter);
  return { cut, items, tokens };
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
