import { deriveEntityId } from '@memotrace/domain';
import type { Derived, KnownEntity } from '../port';
import { editDistance, type EntityKind, nameKey } from './names';

/** How alike a name is to each of `others`, in [0, 1] (e.g. embedding cosine), one score per name, in order. */
export type NameSimilarity = (name: string, others: readonly string[]) => Promise<number[]>;

export interface ResolutionGates {
  /** A similarity-hook score counts as a near-duplicate from this value on. */
  similarityGate: number;
  /** From this score on a near-duplicate is the same entity: resolved to it (a new alias) or merged. */
  mergeGate: number;
  /** The confidence a merge below `mergeGate` carries: under the memory's gate, so it stays a suggestion. */
  suggestionConfidence: number;
}

interface Entry {
  entityId: string;
  name: string;
  types: string[];
  known: boolean;
  /** The command that creates it (batch entities only): its confidence rises to that of the commands naming it. */
  creation?: Derived;
}

interface NearDuplicate {
  entry: Entry;
  score: number;
  why: string;
}

/**
 * The entities a batch names, resolved against the memory's known entities and each other:
 * the same normalised name or alias is the same entity; a near-duplicate (a first name, one
 * typo, a nickname prefix, the similarity hook) is merged when its score reaches the merge
 * gate and otherwise suggested by a merge under the memory's gate. Candidates are tried in
 * a fixed order, so the outcome is deterministic for deterministic similarity scores.
 */
export class EntityBook {
  private readonly byKey = new Map<string, Entry[]>();
  private readonly entries: Entry[] = [];
  private readonly merged = new Set<string>();

  constructor(
    private readonly memoryId: string,
    known: readonly KnownEntity[],
    private readonly gates: ResolutionGates,
    private readonly similarity?: NameSimilarity,
  ) {
    const sorted = [...known].sort((a, b) => (a.entityId < b.entityId ? -1 : a.entityId > b.entityId ? 1 : 0));
    for (const entity of sorted) {
      const entry: Entry = { entityId: entity.entityId, name: entity.name, types: entity.types, known: true };
      this.entries.push(entry);
      for (const alias of [entity.name, ...entity.aliases]) this.index(alias, entry);
    }
  }

  /** The entity a name denotes, adding to `out` the commands that create, alias or merge it (in applicable order). */
  async resolve(name: string, kind: EntityKind, turn: string, out: Derived[]): Promise<string | null> {
    const key = nameKey(name);
    if (key === '') return null;
    const same = (this.byKey.get(key) ?? []).filter((e) => compatible(e, kind));
    if (same.length > 0) {
      this.mergeDuplicates(same, name, turn, out);
      return same[0]!.entityId;
    }
    const near = await this.nearDuplicate(name, key, kind);
    if (near !== null && near.score >= this.gates.mergeGate) {
      out.push({
        command: { op: 'UPSERT_ENTITY', entityId: near.entry.entityId, name: near.entry.name, aliases: [name] },
        confidence: round(near.score),
        turns: [turn],
        why: `alias of "${near.entry.name}" (${near.why})`,
      });
      this.index(name, near.entry);
      return near.entry.entityId;
    }
    const entry = this.create(name, kind, turn, out);
    if (near !== null) {
      out.push({
        command: { op: 'MERGE_ENTITY', srcId: entry.entityId, dstId: near.entry.entityId },
        confidence: Math.min(round(near.score), this.gates.suggestionConfidence),
        turns: [turn],
        why: `maybe "${near.entry.name}" (${near.why})`,
      });
    }
    return entry.entityId;
  }

  /** Raises the confidence of a batch entity's creation to that of a command naming it, so the gate never keeps the entity and drops its facts. */
  uses(entityId: string, confidence: number): void {
    for (const entry of this.entries) {
      if (entry.entityId === entityId && entry.creation !== undefined && entry.creation.confidence < confidence)
        entry.creation.confidence = confidence;
    }
  }

  private create(name: string, kind: EntityKind, turn: string, out: Derived[]): Entry {
    const entityId = deriveEntityId(this.memoryId, name);
    const creation: Derived = {
      command: { op: 'UPSERT_ENTITY', entityId, name, types: [kind] },
      confidence: 0.6,
      turns: [turn],
      why: `${kind} named "${name}"`,
    };
    const entry: Entry = { entityId, name, types: [kind], known: false, creation };
    out.push(creation);
    this.entries.push(entry);
    this.index(name, entry);
    return entry;
  }

  /** Two known entities sharing a name or an alias are one: merged (once) into the one listed first. */
  private mergeDuplicates(same: Entry[], name: string, turn: string, out: Derived[]): void {
    const [dst, ...rest] = same;
    for (const src of rest) {
      if (!src.known || src.entityId === dst!.entityId || this.merged.has(src.entityId)) continue;
      this.merged.add(src.entityId);
      out.push({
        command: { op: 'MERGE_ENTITY', srcId: src.entityId, dstId: dst!.entityId },
        confidence: Math.max(this.gates.mergeGate, 0.95),
        turns: [turn],
        why: `"${src.name}" and "${dst!.name}" share the name "${name}"`,
      });
    }
  }

  private async nearDuplicate(name: string, key: string, kind: EntityKind): Promise<NearDuplicate | null> {
    let best: NearDuplicate | null = null;
    const consider = (entry: Entry, score: number, why: string) => {
      if (best === null || score > best.score) best = { entry, score, why };
    };
    const tokens = key.split(' ');
    for (const entry of this.entries) {
      if (!compatible(entry, kind) || this.merged.has(entry.entityId)) continue;
      const other = nameKey(entry.name);
      const otherTokens = other.split(' ');
      if (
        kind === 'person' &&
        tokens.length !== otherTokens.length &&
        (tokens.length === 1 || otherTokens.length === 1) &&
        tokens[0] === otherTokens[0]
      ) {
        consider(entry, 0.8, 'same first name');
      } else if (key.length >= 6 && editDistance(key, other, 1) <= 1) {
        consider(entry, 0.75, 'one letter apart');
      } else if (
        kind === 'person' &&
        tokens.length === 1 &&
        key.length >= 3 &&
        otherTokens[0]!.length > key.length &&
        otherTokens[0]!.startsWith(key)
      ) {
        consider(entry, 0.6, 'short form');
      }
    }
    if (this.similarity !== undefined) {
      const candidates = this.entries.filter((entry) => compatible(entry, kind) && !this.merged.has(entry.entityId));
      const scores =
        candidates.length === 0
          ? []
          : await this.similarity(
              name,
              candidates.map((entry) => entry.name),
            );
      candidates.forEach((entry, i) => {
        const score = scores[i] ?? 0;
        if (score >= this.gates.similarityGate) consider(entry, Math.min(1, score), `similarity ${score.toFixed(2)}`);
      });
    }
    return best;
  }

  private index(name: string, entry: Entry): void {
    const key = nameKey(name);
    if (key === '') return;
    const list = this.byKey.get(key) ?? [];
    if (!list.includes(entry)) list.push(entry);
    this.byKey.set(key, list);
  }
}

function compatible(entry: Entry, kind: EntityKind): boolean {
  return (
    entry.types.length === 0 || entry.types.some((t) => t.toLowerCase() === kind || (kind === 'organization' && t.toLowerCase() === 'organisation'))
  );
}

function round(x: number): number {
  return Math.round(x * 100) / 100;
}
