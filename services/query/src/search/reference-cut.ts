import type { Cut, FactView, Instant, MemoryQueries } from '@memotrace/domain';
import { bm25Scores } from './bm25';
import type { CutItems } from './cut-items';
import { ItemGraph } from './expand';
import {
  type Candidate,
  episodeCandidate,
  eventCandidate,
  factCandidate,
  isSearchableEvent,
  isSearchableFact,
  isSearchableMention,
  mentionCandidate,
} from './items';
import { type RecallHit, itemKey } from './recall-backend';
import { itemInterval } from './temporal-intent';

/**
 * The executable definition of a cut's items: read through the time-cut read port
 * (`MemoryQueries`, whose projection and replay answers are checked equal elsewhere),
 * rendered, and searched by plain whole-list BM25 and graph. The in-process corpus
 * (`CorpusCut`) must answer exactly like it; tests and the LoCoMo tuning grid use it.
 */
export class ListCutItems implements CutItems {
  private readonly byKey: Map<string, Candidate>;
  private readonly graph: ItemGraph;

  constructor(
    readonly memoryId: string,
    readonly cut: Cut,
    private readonly candidates: readonly Candidate[],
  ) {
    this.byKey = new Map(candidates.map((c) => [itemKey(c), c] as const));
    this.graph = new ItemGraph(candidates);
  }

  get size(): number {
    return this.candidates.length;
  }

  has(key: string): boolean {
    return this.byKey.has(key);
  }

  candidate(key: string): Candidate | undefined {
    return this.byKey.get(key);
  }

  bm25(query: string, options: { limit: number; timedOnly?: boolean }): RecallHit[] {
    const documents = options.timedOnly ? this.candidates.filter((c) => itemInterval(c) !== null) : this.candidates;
    const scores = bm25Scores(
      documents.map((c) => c.text),
      query,
    );
    return documents
      .map((c, i) => ({ key: itemKey(c), score: scores[i]! }))
      .filter((h) => h.score > 0 && Number.isFinite(h.score))
      .sort((a, b) => b.score - a.score)
      .slice(0, options.limit);
  }

  texts(): Iterable<{ key: string; text: string }> {
    return this.candidates.map((c) => ({ key: itemKey(c), text: c.text }));
  }

  neighbours(key: string, fanOut: number): string[] {
    return this.graph.neighbours(key, fanOut);
  }
}

export async function referenceCut(queries: MemoryQueries, memoryId: string, cut: Cut): Promise<ListCutItems> {
  return new ListCutItems(memoryId, cut, await candidatesInCut(queries, memoryId, cut));
}

/** Every search item visible in the cut (erased items are none), in answer order: events, facts, mentions, episodes, each by id. */
export async function candidatesInCut(queries: MemoryQueries, memoryId: string, cut: Cut): Promise<Candidate[]> {
  const [facts, events, episodes, mentions] = await Promise.all([
    queries.facts(memoryId, cut, {}),
    queries.events(memoryId, cut),
    queries.episodes(memoryId, cut),
    queries.mentions(memoryId, cut.recordedAt),
  ]);
  const searchableFacts = facts.filter(isSearchableFact);
  const names = await entityNames(queries, memoryId, cut.recordedAt, searchableFacts);
  const nameOf = (entityId: string) => names.get(entityId) ?? entityId;
  // Evidence is structure: an erased mention the cut shows is still listed, by id.
  const visibleMentions = new Set(mentions.map((m) => m.mentionId));
  return [
    ...events.filter(isSearchableEvent).map(eventCandidate),
    ...searchableFacts.map((fact) => factCandidate(fact, nameOf, visibleMentions)),
    ...mentions.filter(isSearchableMention).map(mentionCandidate),
    ...episodes.map(episodeCandidate),
  ];
}

/** Names of the entities the facts name, as of `recordedAt`; an erased name is none (the fact shows the id). */
async function entityNames(queries: MemoryQueries, memoryId: string, recordedAt: Instant, facts: readonly FactView[]): Promise<Map<string, string>> {
  const ids = new Set<string>();
  for (const fact of facts) {
    ids.add(fact.src);
    if (typeof fact.dst === 'string') ids.add(fact.dst);
  }
  const names = new Map<string, string>();
  for (const id of ids) {
    const entity = await queries.entity(memoryId, id, recordedAt);
    if (entity !== null && entity.name !== null) names.set(id, entity.name);
  }
  return names;
}
