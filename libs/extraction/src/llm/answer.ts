import { defineRelation, mergeEntity, upsertEdge, upsertEntity, upsertEvent } from '@memotrace/contracts';
import { deriveEntityId, deriveFactId, normaliseName, type EdgeTarget } from '@memotrace/domain';
import type { z } from 'zod';
import type { DerivableOp, Derived, DerivedBody, ExtractionInput } from '../port';
import { isCopy } from '../copies';
import { ExtractionFailedError } from '../errors';
import { CANONICAL, cardinalityOf, relationKey, reuse } from '../relations';
import { answerEnvelope, DERIVABLE_OPS, itemEnvelope, modelCommands, type ModelCommand } from './schema';

/**
 * Reads the model's answer into derived items. Policy: an answer that is not JSON or not
 * `{"items": [...]}` fails the extraction (nothing in it can be trusted); an item that fails
 * validation is dropped and reported, and the others are kept. One bad item among twenty must not
 * cost the other nineteen, nor, in `sync` mode, the whole request (a 502 for the turns); what is
 * kept has passed the contracts' schemas, so a dropped item never weakens what is written.
 */

export interface DroppedItem {
  /** The item's place in the answer's `items`. */
  index: number;
  reason: string;
}

export interface ReadAnswer {
  derived: Derived[];
  dropped: DroppedItem[];
}

/** An entity named by the answer: `dependsOn` is the item that upserts it when the memory does not know it yet. */
interface EntityEntry {
  entityId: string;
  dependsOn?: number;
}

interface Kept {
  index: number;
  derived: Derived;
}

/** Entities before what names them, relations before their facts (a `one` relation supersedes from its first fact). */
const OP_RANK: Record<DerivableOp, number> = { UPSERT_ENTITY: 0, DEFINE_RELATION: 1, MERGE_ENTITY: 2, UPSERT_EDGE: 3, UPSERT_EVENT: 4 };

const MAX_WHY_CHARS = 200;

export function readAnswer(content: string, input: ExtractionInput): ReadAnswer {
  let json: unknown;
  try {
    json = JSON.parse(content);
  } catch (error) {
    throw new ExtractionFailedError(
      `the model's answer is not JSON (${(error as Error).message}); it starts ${JSON.stringify(content.slice(0, 80))}`,
      undefined,
      { summary: "the model's answer is not JSON" },
    );
  }
  const envelope = answerEnvelope.safeParse(json);
  if (!envelope.success) {
    throw new ExtractionFailedError(
      `the model's answer is not {"items": [...]} as the response format asks: ${describe(envelope.error)}`,
      undefined,
      {
        summary: 'the model\'s answer is not {"items": [...]} as the response format asks',
      },
    );
  }
  return new AnswerReader(input).read(envelope.data.items);
}

class AnswerReader {
  private readonly turnIds: Set<string>;
  private readonly turnAt: Map<string, string>;
  private readonly turnText: Map<string, string>;
  /** The memory's relations by key: a fact says a known relation as the memory does. */
  private readonly knownRelations: Map<string, string>;
  private readonly knownIds: Set<string>;
  private readonly knownByName = new Map<string, Set<string>>();
  private readonly knownByAlias = new Map<string, Set<string>>();
  /** Normalised names and aliases upserted by the answer; `null` when two entities share one. */
  private readonly answerNames = new Map<string, EntityEntry | null>();
  private readonly dropped: DroppedItem[] = [];
  private readonly kept = new Map<number, Kept>();

  constructor(private readonly input: ExtractionInput) {
    this.turnIds = new Set(input.turns.map((t) => t.mentionId));
    this.turnAt = new Map(input.turns.map((t) => [t.mentionId, t.at]));
    this.turnText = new Map(input.turns.map((t) => [t.mentionId, t.text]));
    this.knownRelations = new Map((input.relations ?? []).map((r) => [relationKey(r.rel), r.rel]));
    this.knownIds = new Set(input.entities.map((e) => e.entityId));
    for (const e of input.entities) {
      addTo(this.knownByName, normaliseName(e.name), e.entityId);
      for (const alias of e.aliases) addTo(this.knownByAlias, normaliseName(alias), e.entityId);
    }
  }

  read(items: unknown[]): ReadAnswer {
    const parsed: { index: number; command: ModelCommand; confidence: number; turns: string[]; why?: string }[] = [];
    const envelope = itemEnvelope(this.turnIds);
    items.forEach((raw, index) => {
      const item = envelope.safeParse(raw);
      if (!item.success) return this.drop(index, describe(item.error));
      const op = item.data.command.op;
      if (typeof op !== 'string' || !Object.hasOwn(modelCommands, op)) {
        return this.drop(index, `op ${JSON.stringify(op)} is not derivable (one of ${DERIVABLE_OPS.join(', ')})`);
      }
      const command = modelCommands[op as DerivableOp].safeParse(item.data.command);
      if (!command.success) return this.drop(index, `${op}: ${describe(command.error)}`);
      const cited = new Set(item.data.turns);
      const turns = this.input.turns.filter((t) => cited.has(t.mentionId)).map((t) => t.mentionId);
      const why = item.data.why?.trim().slice(0, MAX_WHY_CHARS);
      parsed.push({ index, command: command.data, confidence: item.data.confidence, turns, ...(why ? { why } : {}) });
    });

    // Entities first, so that every other item can name them; events last, as they name facts.
    for (const p of parsed) if (p.command.op === 'UPSERT_ENTITY') this.entity(p.index, p.command, p);
    for (const p of parsed) if (p.command.op !== 'UPSERT_ENTITY' && p.command.op !== 'UPSERT_EVENT') this.other(p.index, p.command, p);
    for (const p of parsed) if (p.command.op === 'UPSERT_EVENT') this.event(p.index, p.command, p);

    this.declareCanonical(items.length);
    const kept = [...this.kept.values()].sort((a, b) => OP_RANK[a.derived.command.op] - OP_RANK[b.derived.command.op] || a.index - b.index);
    return { derived: kept.map((k) => k.derived), dropped: this.dropped.sort((a, b) => a.index - b.index) };
  }

  private entity(index: number, command: Extract<ModelCommand, { op: 'UPSERT_ENTITY' }>, item: ItemFields): void {
    const entityId = this.knownIdForName(command.name) ?? deriveEntityId(this.input.memoryId, command.name);
    const body = upsertEntity.safeParse({
      op: 'UPSERT_ENTITY',
      entityId,
      name: command.name,
      ...(command.aliases?.length ? { aliases: command.aliases } : {}),
      ...(command.types?.length ? { types: command.types } : {}),
    });
    if (!body.success) return this.drop(index, `UPSERT_ENTITY: ${describe(body.error)}`);
    this.keep(index, body.data, item.confidence, item);
    const entry: EntityEntry = this.knownIds.has(entityId) ? { entityId } : { entityId, dependsOn: index };
    for (const name of [command.name, ...(command.aliases ?? [])]) {
      const key = normaliseName(name);
      const current = this.answerNames.get(key);
      this.answerNames.set(key, current === undefined ? entry : current?.entityId === entityId ? current : null);
    }
  }

  private other(index: number, command: Exclude<ModelCommand, { op: 'UPSERT_ENTITY' | 'UPSERT_EVENT' }>, item: ItemFields): void {
    const deps: number[] = [];
    try {
      switch (command.op) {
        case 'DEFINE_RELATION': {
          const rel = reuse(command.rel, this.knownRelations);
          if (rel in CANONICAL && cardinalityOf(rel) !== command.cardinality) {
            return this.drop(index, `DEFINE_RELATION: ${rel} is canonical, "${cardinalityOf(rel)}"`);
          }
          const body = defineRelation.safeParse({ op: 'DEFINE_RELATION', rel, cardinality: command.cardinality });
          if (!body.success) return this.drop(index, `DEFINE_RELATION: ${describe(body.error)}`);
          return this.keep(index, body.data, item.confidence, item);
        }
        case 'MERGE_ENTITY': {
          const body = mergeEntity.safeParse({
            op: 'MERGE_ENTITY',
            srcId: this.resolve(command.srcId, deps),
            dstId: this.resolve(command.dstId, deps),
          });
          if (!body.success) return this.drop(index, `MERGE_ENTITY: ${describe(body.error)}`);
          return this.keep(index, body.data, this.clamp(item.confidence, deps), item);
        }
        case 'UPSERT_EDGE': {
          const src = this.resolve(command.src, deps);
          const dst = typeof command.dst === 'string' ? this.resolve(command.dst, deps) : command.dst;
          if (typeof dst !== 'string' && this.copies(String(dst.literal), item.turns))
            return this.drop(index, "UPSERT_EDGE: its literal repeats the turn's words");
          const confidence = this.clamp(item.confidence, deps);
          const body = upsertEdge.safeParse({
            op: 'UPSERT_EDGE',
            src,
            rel: reuse(command.rel, this.knownRelations),
            dst,
            // Said without a time of its own, a fact holds from when it was said, not from when it is recorded.
            validFrom: command.validFrom ?? this.earliestAt(item.turns),
            ...(command.validTo !== undefined ? { validTo: command.validTo } : {}),
            confidence,
            evidence: item.turns,
          });
          if (!body.success) return this.drop(index, `UPSERT_EDGE: ${describe(body.error)}`);
          return this.keep(index, body.data, confidence, item);
        }
      }
    } catch (error) {
      if (error instanceof UnresolvedEntity) return this.drop(index, `${command.op}: ${error.message}`);
      throw error;
    }
  }

  private event(index: number, command: Extract<ModelCommand, { op: 'UPSERT_EVENT' }>, item: ItemFields): void {
    // An event rests on the statements it includes: without one it would rest on nothing the turns state.
    if ((command.factItems ?? []).length === 0) return this.drop(index, 'UPSERT_EVENT: factItems names no statement it rests on');
    if (this.copies(command.summary, item.turns)) return this.drop(index, "UPSERT_EVENT: its summary repeats the turn's words");
    const deps: number[] = [];
    const facts: Extract<DerivedBody, { op: 'UPSERT_EDGE' }>[] = [];
    for (const place of command.factItems ?? []) {
      const fact = this.kept.get(place)?.derived.command;
      if (fact?.op !== 'UPSERT_EDGE') return this.drop(index, `UPSERT_EVENT: factItems names item ${place}, which is not a kept UPSERT_EDGE`);
      facts.push(fact);
      deps.push(place);
    }
    const factIds = facts.map((f) => f.factId ?? deriveFactId(this.input.memoryId, f.src, f.rel, f.dst as EdgeTarget));
    const includesFacts = [...new Set(factIds)];
    let participants: { entityId: string; role: string }[];
    try {
      participants = (command.participants ?? []).map((p) => ({ entityId: this.resolve(p.entityId, deps), role: p.role }));
    } catch (error) {
      if (error instanceof UnresolvedEntity) return this.drop(index, `UPSERT_EVENT: ${error.message}`);
      throw error;
    }
    const body = upsertEvent.safeParse({
      op: 'UPSERT_EVENT',
      summary: command.summary,
      ...(participants.length > 0 ? { participants } : {}),
      includesFacts,
      timeSpan: command.timeSpan.to === undefined ? { from: command.timeSpan.from } : command.timeSpan,
    });
    if (!body.success) return this.drop(index, `UPSERT_EVENT: ${describe(body.error)}`);
    this.keep(index, body.data, this.clamp(item.confidence, deps), item);
    // Named explicitly, so that the event includes exactly the facts this batch writes (merges may give a default id another fact's).
    for (const [i, fact] of facts.entries()) fact.factId ??= factIds[i]!;
  }

  /**
   * An entity named by a known id, by a name or alias the answer upserts, or by a known entity's
   * name or alias (one entity only). Records in `deps` the item that must be written for the id to exist.
   */
  private resolve(ref: string, deps: number[]): string {
    if (this.knownIds.has(ref)) return ref;
    const key = normaliseName(ref);
    const upserted = this.answerNames.get(key);
    if (upserted === null) throw new UnresolvedEntity(`${JSON.stringify(ref)} names more than one entity of the answer`);
    if (upserted) {
      if (upserted.dependsOn !== undefined) deps.push(upserted.dependsOn);
      return upserted.entityId;
    }
    const known = this.knownIdForName(ref);
    if (known) return known;
    throw new UnresolvedEntity(`${JSON.stringify(ref)} is neither a known entity id nor an entity upserted in the answer`);
  }

  private knownIdForName(name: string): string | undefined {
    const key = normaliseName(name);
    const byName = this.knownByName.get(key);
    if (byName?.size === 1) return [...byName][0];
    const byAlias = this.knownByAlias.get(key);
    return byName === undefined && byAlias?.size === 1 ? [...byAlias][0] : undefined;
  }

  /**
   * No higher than the items it depends on: the gate compares each command's confidence, and a
   * command kept while the entity or fact it names is not would fail when appended.
   */
  private clamp(confidence: number, deps: number[]): number {
    return deps.reduce((min, dep) => Math.min(min, this.kept.get(dep)?.derived.confidence ?? min), confidence);
  }

  private earliestAt(turns: string[]): string {
    return turns.map((t) => this.turnAt.get(t)!).reduce((a, b) => (b < a ? b : a));
  }

  /** A canonical `one` relation a kept fact uses and the answer does not declare is declared, as the rules extractor does. */
  private declareCanonical(next: number): void {
    const declared = new Set([...this.kept.values()].flatMap((k) => (k.derived.command.op === 'DEFINE_RELATION' ? [k.derived.command.rel] : [])));
    for (const { derived } of [...this.kept.values()]) {
      const c = derived.command;
      if (c.op !== 'UPSERT_EDGE' || cardinalityOf(c.rel) !== 'one' || declared.has(c.rel) || this.knownRelations.has(relationKey(c.rel))) continue;
      declared.add(c.rel);
      const index = next++;
      this.kept.set(index, {
        index,
        derived: { command: { op: 'DEFINE_RELATION', rel: c.rel, cardinality: 'one' }, confidence: 1, turns: derived.turns },
      });
    }
  }

  /** Whether a text repeats the words of one of the turns it cites (../copies.ts). */
  private copies(text: string, turns: readonly string[]): boolean {
    return turns.some((t) => isCopy(text, this.turnText.get(t) ?? '') || isCopy(text.replace(/^[^:]{1,64}:\s*/u, ''), this.turnText.get(t) ?? ''));
  }

  private keep(index: number, command: DerivedBody, confidence: number, item: ItemFields): void {
    const derived: Derived = { command, confidence, turns: item.turns, ...(item.why ? { why: item.why } : {}) };
    this.kept.set(index, { index, derived });
  }

  private drop(index: number, reason: string): void {
    this.dropped.push({ index, reason });
  }
}

interface ItemFields {
  confidence: number;
  turns: string[];
  why?: string;
}

class UnresolvedEntity extends Error {}

function addTo(map: Map<string, Set<string>>, key: string, id: string): void {
  const set = map.get(key);
  if (set) set.add(id);
  else map.set(key, new Set([id]));
}

/** The first issues of a zod error, with their paths: enough to see what the model got wrong. */
function describe(error: z.ZodError): string {
  const shown = error.issues.slice(0, 3).map((i) => (i.path.length > 0 ? `${i.path.join('.')}: ${i.message}` : i.message));
  return error.issues.length > 3 ? `${shown.join('; ')} (and ${error.issues.length - 3} more)` : shown.join('; ');
}
