import { compareDocumentOrder } from '@memotrace/domain';
import type { Candidate } from './items';
import { itemKey } from './recall-backend';

export interface ExpansionOptions {
  /** How many of the best items expansion starts from. */
  seeds: number;
  /** Hops from a seed. */
  depth: number;
  /** Neighbours followed per item and link kind. */
  fanOut: number;
  /** A neighbour scores this share of the item it was reached from. */
  decay: number;
  /**
   * Further factor for the turn before the one it was reached from: a reply tends to
   * carry what the turn before it asked or announced, so the turn after is the likelier answer.
   */
  earlierTurnFactor: number;
  /**
   * Further factor between a fact and a turn it cites, either way (0: neither reaches the other). A
   * fact is found by its own words and a turn by its own: one lifted by the other stands beside it
   * saying the same, or, for a fact restated in many turns, brings turns the question is not about.
   */
  citationFactor: number;
}

/** Tuned on the LoCoMo dev split only: two turns either side of the ten best items. */
export const DEFAULT_EXPANSION: ExpansionOptions = { seeds: 10, depth: 2, fanOut: 4, decay: 0.85, earlierTurnFactor: 0.9, citationFactor: 0 };

/**
 * Most items of the cut an entity may be named by and still link them: a speaker is named by most
 * facts of a conversation, so a link through them lifts facts the question is not about (tuned on
 * the LoCoMo dev split only).
 */
export const ENTITY_HUB = 12;

/**
 * The cut's items as a graph: evidence links both ways (event -> facts -> mentions,
 * episode -> events), entity links (facts and events naming the same entity, unless more than
 * ENTITY_HUB items name it), and
 * neighbouring turns (the previous and next mention of the same document, in document
 * order). Only candidates of the cut are nodes, so expansion cannot leave it.
 */
export class ItemGraph {
  private readonly byKey = new Map<string, Candidate>();
  private readonly reverse = new Map<string, string[]>();
  private readonly byEntity = new Map<string, string[]>();
  private readonly byDoc = new Map<string, Candidate[]>();
  private readonly sortedDocs = new Set<string>();

  /** Indexes in one pass; neighbours are worked out only for the items expansion visits (a few per search). */
  constructor(candidates: readonly Candidate[]) {
    for (const c of candidates) this.byKey.set(itemKey(c), c);
    for (const c of candidates) {
      const key = itemKey(c);
      for (const e of c.evidence) push(this.reverse, itemKey(e), key);
      for (const entity of c.entities ?? []) push(this.byEntity, entity, key);
      if (c.kind === 'mention' && c.docId !== undefined) push(this.byDoc, c.docId, c);
    }
  }

  candidate(key: string): Candidate | undefined {
    return this.byKey.get(key);
  }

  /** Neighbours by link kind (evidence, evidenced-by, neighbouring turns, same entity), each list capped at `fanOut`. */
  neighbours(key: string, fanOut: number): string[] {
    const c = this.byKey.get(key);
    if (c === undefined) return [];
    const evidence = c.evidence.map(itemKey).filter((k) => this.byKey.has(k));
    const sameEntity = [...new Set((c.entities ?? []).flatMap((e) => this.linkedBy(e)))].filter((k) => k !== key);
    return [evidence, this.reverse.get(key) ?? [], this.turnsNextTo(c), sameEntity].flatMap((list) => list.slice(0, fanOut));
  }

  /** The items naming `entity`, or none when it is a hub. */
  private linkedBy(entity: string): string[] {
    const naming = this.byEntity.get(entity) ?? [];
    return new Set(naming).size > ENTITY_HUB ? [] : naming;
  }

  private turnsNextTo(c: Candidate): string[] {
    if (c.kind !== 'mention' || c.docId === undefined) return [];
    const turns = this.byDoc.get(c.docId)!;
    if (!this.sortedDocs.has(c.docId)) {
      turns.sort(byDocumentOrder);
      this.sortedDocs.add(c.docId);
    }
    const i = turns.indexOf(c);
    return [turns[i - 1], turns[i + 1]].filter((n) => n !== undefined).map(itemKey);
  }
}

type Turn = { id: string; occurredAt?: string | null | undefined };

/** The order of a document's turns, as the mentions read answers them. */
export function byDocumentOrder(a: Turn, b: Turn): number {
  return compareDocumentOrder({ occurredAt: a.occurredAt, mentionId: a.id }, { occurredAt: b.occurredAt, mentionId: b.id });
}

/**
 * Breadth-first from the `seeds` best-scored items: a reached item scores
 * decay^hops x its seed's score (x earlierTurnFactor per step back to an earlier turn),
 * and keeps the higher of that and its own score.
 * Returns the new score of every item reached or scored.
 */
export function expand(
  scores: ReadonlyMap<string, number>,
  graph: Pick<ItemGraph, 'neighbours' | 'candidate'>,
  options: ExpansionOptions = DEFAULT_EXPANSION,
): Map<string, number> {
  const out = new Map(scores);
  const seeds = [...scores.entries()].sort((a, b) => b[1] - a[1]).slice(0, options.seeds);
  let frontier = seeds;
  for (let hop = 0; hop < options.depth && frontier.length > 0; hop++) {
    const next: [string, number][] = [];
    for (const [key, score] of frontier) {
      for (const neighbour of graph.neighbours(key, options.fanOut)) {
        const reached = score * options.decay * linkFactor(graph, neighbour, key, options);
        if ((out.get(neighbour) ?? 0) >= reached) continue;
        out.set(neighbour, reached);
        next.push([neighbour, reached]);
      }
    }
    frontier = next;
  }
  return out;
}

/** The factor of reaching `key` from `of`: between a fact and a turn it cites, to an earlier turn of the same document, or any other (1). */
function linkFactor(graph: Pick<ItemGraph, 'candidate'>, key: string, of: string, options: ExpansionOptions): number {
  const a = graph.candidate(key);
  const b = graph.candidate(of);
  if ((a?.kind === 'fact' && b?.kind === 'mention') || (a?.kind === 'mention' && b?.kind === 'fact')) return options.citationFactor;
  return a?.kind === 'mention' && b?.kind === 'mention' && a.docId !== undefined && a.docId === b.docId && byDocumentOrder(a, b) < 0
    ? options.earlierTurnFactor
    : 1;
}

function push<T>(map: Map<string, T[]>, key: string, value: T): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}
