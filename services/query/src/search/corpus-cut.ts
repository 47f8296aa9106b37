import * as domain from '@memotrace/domain';
import {
  type Cut,
  type CutKind,
  type EntityNameRow,
  type ItemKind,
  type MergeRecord,
  KIND_RANK,
  type RecordRule,
  type Requirement,
  type Translations,
  factText,
  ruleOf,
} from '@memotrace/domain';
import { MergeForest } from '@memotrace/read-models';
import { dot, textHash } from '@memotrace/search-index';
import { bestFirst, kthLargest } from './best-first';
import { type TermPostings, topBm25 } from './top-bm25';
import { analyze } from './analyze';
import { type ItemVersion, type MemoryCorpus, nameShownFrom } from './corpus';
import type { CorpusVectors } from './corpus-vectors';
import type { CutItems, NearestOptions, NearestResult, VectorStore } from './cut-items';
import { ENTITY_HUB } from './expand';
import { innerProductError, innerProductTop } from './inner-product-top';
import { type Candidate, episodeCandidate, eventCandidate, factCandidate, mentionCandidate } from './items';
import { type RecallHit, itemKey } from './recall-backend';

/**
 * The domain's rule tests, read once: a function imported from a package that re-exports it is
 * a getter call per use under tsx (docs/architecture.md, "Compiled, and hot paths under tsx").
 */
const { inRecordTime, listedMembers } = domain;

/** The corpus's typed arrays of epoch milliseconds (open ends infinite), by name. */
type TimeColumn = 'recFrom' | 'recTo' | 'validFrom' | 'validTo';

/** A version row's parts: typed-array columns, the member list read off the version. */
interface RowParts {
  recordedFrom: TimeColumn;
  recordedTo: TimeColumn;
  validity: { from: TimeColumn; to: TimeColumn };
  members: (version: ItemVersion) => readonly string[];
}

/** A record's parts (entities and merges are records of their own, not rows). */
interface RecordParts<T> {
  recordedFrom: (record: T) => string;
  recordedTo: never;
  validity: never;
  members: never;
}

/**
 * The corpus's translation of the cut rules (libs/domain/src/visibility.ts): where a version
 * row keeps what its kind's rule reads, and where entities and merges keep theirs.
 */
const CORPUS_CUT: Translations<{
  fact: RowParts;
  event: RowParts;
  episode: RowParts;
  mention: RowParts;
  entity: RecordParts<EntityNameRow>;
  merge: RecordParts<MergeRecord>;
}> = {
  fact: { recordedFrom: 'recFrom', recordedTo: 'recTo', validity: { from: 'validFrom', to: 'validTo' } },
  event: { recordedFrom: 'recFrom', recordedTo: 'recTo', validity: { from: 'validFrom', to: 'validTo' }, members: (v) => v.includesFacts ?? [] },
  episode: { recordedFrom: 'recFrom', recordedTo: 'recTo', validity: { from: 'validFrom', to: 'validTo' }, members: (v) => v.episodeEvents ?? [] },
  mention: { recordedFrom: 'recFrom' },
  entity: { recordedFrom: (e) => e.recordedFrom },
  merge: { recordedFrom: (m) => m.recordedAt },
};

/** A row kind's rule, compiled once from the rule and its translation: what the scan of a view tests per row. */
interface RowPlan {
  kind: ItemKind;
  record: RecordRule;
  recordedFrom: TimeColumn;
  recordedTo: TimeColumn | null;
  validity: { from: TimeColumn; to: TimeColumn } | null;
  requires: (Requirement & { kind: ItemKind; of: (version: ItemVersion) => readonly string[] }) | null;
}

const isItemKind = (kind: CutKind): kind is ItemKind => kind in KIND_RANK;

function rowPlan(kind: ItemKind): RowPlan {
  const rule = ruleOf(kind);
  const row = CORPUS_CUT[kind] as {
    recordedFrom: TimeColumn;
    recordedTo?: TimeColumn;
    validity?: { from: TimeColumn; to: TimeColumn };
    members?: (v: ItemVersion) => readonly string[];
  };
  const requires = rule.requires;
  if (requires !== null && !isItemKind(requires.kind)) throw new Error(`the corpus holds no ${requires.kind} for the members of ${kind}`);
  return {
    kind,
    record: rule.record,
    recordedFrom: row.recordedFrom,
    recordedTo: row.recordedTo ?? null,
    validity: rule.validity === null ? null : row.validity!,
    requires: requires === null ? null : { ...requires, kind: requires.kind as ItemKind, of: row.members! },
  };
}

/** The plans by KIND_RANK (the corpus's `kinds` column). */
const ROW_PLANS: readonly RowPlan[] = (Object.keys(KIND_RANK) as ItemKind[]).sort((a, b) => KIND_RANK[a] - KIND_RANK[b]).map(rowPlan);

/**
 * A plan with its columns resolved in one corpus (once per view): the scan's per-row test,
 * `inRecordTime` and `inValidTime` of the domain over epoch ms (open ends infinite), inlined
 * (a call per row, shared with the domain's string instants, doubled the cost of a 100k-row
 * scan). `to` is set only for a record interval, `validFrom`/`validTo` only for a rule with a
 * validity.
 */
interface BoundPlan {
  plan: RowPlan;
  from: Float64Array;
  to: Float64Array | null;
  validFrom: Float64Array | null;
  validTo: Float64Array | null;
  requires: boolean;
}

/** A fact naming a merged entity: its text at the cut (canonical names), analysed. */
interface Rendered {
  text: string;
  terms: string[];
}

/**
 * One cut of a memory corpus as search sees it (CutItems): the cut asked for, over a
 * view of the corpus. Cuts that see the same items share one view, so what a search
 * builds (visibility, candidates) serves the next search of the memory too.
 */
export class CorpusCut implements CutItems {
  constructor(
    private readonly view: CutView,
    readonly memoryId: string,
    readonly cut: Cut,
  ) {}

  get size(): number {
    return this.view.size;
  }

  has(key: string): boolean {
    return this.view.has(key);
  }

  candidate(key: string): Candidate | undefined {
    return this.view.candidate(key);
  }

  texts(): Iterable<{ key: string; text: string }> {
    return this.view.texts();
  }

  bm25(query: string, options: { limit: number; timedOnly?: boolean }): RecallHit[] {
    return this.view.bm25(query, options);
  }

  nearest(store: VectorStore, query: Float32Array, options: NearestOptions): Promise<NearestResult> {
    return this.view.nearest(store, query, options, this.memoryId);
  }

  neighbours(key: string, fanOut: number): string[] {
    return this.view.neighbours(key, fanOut);
  }
}

/** Most candidates a view keeps built (a few MB); past it, it starts over. */
const MAX_BUILT = 50_000;

/**
 * The items of a memory corpus visible in one cut, by the domain's rules (SPEC §3.2,
 * libs/domain/src/visibility.ts, translated by CORPUS_CUT): one scan tests each row's record
 * rule and validity (e.g. a fact version iff its record interval holds r and its validity
 * holds validAt, a mention iff recorded by r), then the rows whose rule requires members
 * (an event: every fact it includes believed at r; an episode: one of its events visible at
 * r at any validity) are decided. Entities are named by their canonical id at r. A version whose
 * content was erased counts for the rules (as a fact an event includes, ...) but is not visible:
 * it is no item, hit or neighbour.
 */
export class CutView {
  readonly size: number;
  private readonly r: number;
  /** Valid time, null for `*`. */
  private readonly v: number | null;
  /** The row plans bound to this corpus's columns, by KIND_RANK. */
  private readonly plans: readonly BoundPlan[];
  /** Per row, whether it is in the cut at validAt '*' (0: not decided yet, 1: yes, 2: no); made when a requirement first asks. */
  private counted: Uint8Array | null = null;
  /** `counts(kind)(id)`: a member of that kind counts at r. Made once (no closure per row). */
  private readonly counts: Readonly<Record<ItemKind, (id: string) => boolean>>;
  /** The corpus generation the view was made of: a later delta may change what any cut shows. */
  private readonly generation: number;
  private readonly visible: Uint8Array;
  private readonly forest: MergeForest;
  private readonly rendered = new Map<number, Rendered>();
  /** Set for the versions in `rendered` (null when none is). */
  private renderedFlags: Uint8Array | null = null;
  private readonly built = new Map<string, Candidate | null>();
  private readonly stats = new Map<Uint8Array, { n: number; totalLength: number }>();
  private timed: Uint8Array | undefined;

  constructor(
    private readonly corpus: MemoryCorpus,
    cut: Cut,
  ) {
    const r = (this.r = Date.parse(cut.recordedAt));
    const v = (this.v = cut.validAt === '*' ? null : Date.parse(cut.validAt));
    this.generation = corpus.generation;
    this.forest = new MergeForest(corpus.merges.filter((m) => this.recorded('merge', m)));
    const plans = (this.plans = ROW_PLANS.map((plan) => ({
      plan,
      from: corpus[plan.recordedFrom],
      to: plan.record === 'interval' ? corpus[plan.recordedTo!] : null,
      validFrom: plan.validity === null ? null : corpus[plan.validity.from],
      validTo: plan.validity === null ? null : corpus[plan.validity.to],
      requires: plan.requires !== null,
    })));
    this.counts = {
      fact: (id) => this.countsAt('fact', id),
      event: (id) => this.countsAt('event', id),
      episode: (id) => this.countsAt('episode', id),
      mention: (id) => this.countsAt('mention', id),
    };
    const { kinds, erased } = corpus;
    const visible = (this.visible = new Uint8Array(corpus.size));
    const deferred: number[] = [];
    let size = 0;
    for (let i = 0; i < corpus.size; i++) {
      const bound = plans[kinds[i]!]!;
      if (!(bound.from[i]! <= r) || (bound.to !== null && !(r < bound.to[i]!))) continue;
      if (v !== null && bound.validFrom !== null && !(bound.validFrom[i]! <= v && v < bound.validTo![i]!)) continue;
      if (erased[i] === 1) continue;
      if (bound.requires) deferred.push(i);
      else {
        visible[i] = 1;
        size += 1;
      }
    }
    // Rows whose rule requires members: decided once the scan has passed them all. Their record
    // rule holds, so what is decided also answers whether they count as members (memoised).
    const counted = deferred.length > 0 ? (this.counted = new Uint8Array(corpus.size)) : null;
    for (const i of deferred) {
      if (counted![i] === 0) counted![i] = this.requirementMet(i) ? 1 : 2;
      if (counted![i] === 1) {
        visible[i] = 1;
        size += 1;
      }
    }
    this.size = size;
    this.renderMergedFacts();
  }

  /**
   * Whether `cut` of `corpus` shows exactly what this view shows: the corpus has not changed since,
   * no record time of the corpus lies between the two record times (both at or after
   * the latest, or equal), and no validity boundary between the two valid times.
   */
  shows(corpus: MemoryCorpus, cut: Cut): boolean {
    if (corpus !== this.corpus || corpus.generation !== this.generation) return false;
    const r = Date.parse(cut.recordedAt);
    const latest = corpus.watermark === null ? Number.NEGATIVE_INFINITY : Date.parse(corpus.watermark.at);
    if (r !== this.r && (r < latest || this.r < latest)) return false;
    const v = cut.validAt === '*' ? null : Date.parse(cut.validAt);
    if (v === this.v) return true;
    return v !== null && this.v !== null && v >= corpus.validityBound && this.v >= corpus.validityBound;
  }

  has(key: string): boolean {
    const built = this.built.get(key);
    return built === undefined ? this.visibleVersion(key) !== undefined : built !== null;
  }

  candidate(key: string): Candidate | undefined {
    let candidate = this.built.get(key);
    if (candidate === undefined) {
      const i = this.visibleVersion(key);
      candidate = i === undefined ? null : this.build(i);
      if (this.built.size >= MAX_BUILT) this.built.clear();
      this.built.set(key, candidate);
    }
    return candidate ?? undefined;
  }

  *texts(): Iterable<{ key: string; text: string }> {
    const { versions } = this.corpus;
    for (let i = 0; i < versions.length; i++) if (this.visible[i]) yield { key: versions[i]!.key, text: this.textOf(i) };
  }

  bm25(query: string, options: { limit: number; timedOnly?: boolean }): RecallHit[] {
    const terms = [...new Set(analyze(query))];
    if (terms.length === 0) return [];
    const included = this.included(options.timedOnly ?? false);
    const { n, totalLength } = this.collection(included);
    if (n === 0) return [];
    const { lengths, versions } = this.corpus;
    const own = this.renderedFlags;
    const accepted = (i: number) => included[i] === 1 && !own?.[i];
    // Each term's postings at the cut (a rendered fact by its text at the cut), with the cut's document frequency.
    const postings: TermPostings[] = [];
    for (const term of terms) {
      const { versions: docs, frequencies } = this.corpus.postings.get(term) ?? { versions: [], frequencies: [] };
      const extra = this.renderedWith(term, included).map(([i, f]) => [i, f, this.lengthOf(i)] as const);
      let df = extra.length;
      for (let p = 0; p < docs.length; p++) if (accepted(docs[p]!)) df += 1;
      if (df > 0) postings.push({ docs, frequencies, extra, idf: Math.log(1 + (n - df + 0.5) / (df + 0.5)) });
    }
    const best = topBm25({
      terms: postings,
      accepted,
      lengths,
      averageLength: totalLength / n || 1,
      limit: options.limit,
      tieOrder: this.corpus.compareAt,
    });
    return best.map(({ index, score }) => ({ key: versions[index]!.key, score }));
  }

  /**
   * Cosine kNN over the visible versions. A store that reads deltas (`since`) is caught up with
   * first, and a version whose text has no vector yet is left to BM25 (counted as unembedded);
   * of any other store the vectors the corpus lacks are asked in one call. A fact rendered at the
   * cut is looked up by its text at the cut. Then the versions that can be among the nearest
   * (`ownVectorCandidates`) are scored exactly.
   */
  async nearest(store: VectorStore, query: Float32Array, options: NearestOptions, memoryId: string): Promise<NearestResult> {
    const table = this.corpus.vectorsOf(store.model);
    const { versions, erased } = this.corpus;
    table.register(this.corpus.size, (i) => (erased[i] === 1 ? null : versions[i]!.text));
    if (store.since !== undefined) await table.catchUp(store, memoryId, this.corpus.erasedAt);
    else {
      const waiting = table.waitingHashes();
      if (waiting.length > 0) table.keepAll(await store.vectors(waiting));
    }
    const size = this.visible.length;
    const atCut = new Map<number, string>();
    let ownVectors = 0;
    let unembedded = 0;
    for (let i = 0; i < size; i++) {
      if (!this.visible[i]) continue;
      if (this.renderedFlags?.[i]) atCut.set(i, textHash(this.rendered.get(i)!.text));
      else if (table.rowOf(i) >= 0) ownVectors += 1;
      else unembedded += 1;
    }
    const asked = [...new Set(atCut.values())].filter((hash) => table.rowOfText(hash) === undefined);
    const found = asked.length > 0 ? await store.vectors(asked) : new Map<string, Float32Array>();
    const { scores, touched } = scratch.take(size);
    let hits = 0;
    const keep = (i: number, score: number): void => {
      if (score < options.minCosine) return;
      scores[i] = score;
      touched[hits++] = i;
    };
    try {
      for (const [i, hash] of atCut) {
        const row = table.rowOfText(hash);
        const vector = row === undefined ? found.get(hash) : table.row(row);
        if (vector !== undefined) keep(i, dot(query, vector));
        else unembedded += 1;
      }
      for (const [i, score] of this.ownVectorCandidates(table, query, options, ownVectors)) keep(i, score);
      const best = bestFirst(touched.subarray(0, hits), scores, options.limit, this.corpus.compareAt);
      return { hits: best.map((i) => ({ key: versions[i]!.key, score: scores[i]! })), unembedded };
    } finally {
      for (let h = 0; h < hits; h++) scores[touched[h]!] = 0;
    }
  }

  /**
   * The visible versions scored by their text's vector that can be among the `limit` nearest,
   * with their exact cosine: every one when few are visible, else the versions of the text rows
   * the SIMD scan ranks highest, widened until no row left out can beat the `limit`-th kept.
   */
  private *ownVectorCandidates(
    table: CorpusVectors,
    query: Float32Array,
    { limit, minCosine }: NearestOptions,
    visible: number,
  ): Iterable<[number, number]> {
    const own = (i: number) => this.visible[i] === 1 && !this.renderedFlags?.[i];
    if (visible * 4 < table.rows || visible <= limit || query.length !== table.dimension) {
      for (let i = 0; i < this.visible.length; i++) if (own(i) && table.rowOf(i) >= 0) yield [i, dot(query, table.vector(i)!)];
      return;
    }
    const error = innerProductError(table.dimension, table.maxNorm * Math.sqrt(dot(query, query)));
    let count = Math.ceil((limit * table.rows) / visible) * 2 + 64;
    for (;;) {
      const top = innerProductTop(table.matrix, table.rows, table.dimension, query, count);
      const kept: number[] = [];
      const exact: number[] = [];
      for (const row of top.rows) {
        const score = dot(query, table.row(row));
        for (const i of table.versionsOf(row)) {
          if (!own(i)) continue;
          kept.push(i);
          exact.push(score);
        }
      }
      // No row left out scores above the last one taken, give or take the kernel's rounding.
      const ceiling = top.scores.length > 0 ? top.scores[top.scores.length - 1]! + error : -Infinity;
      if (top.rows.length >= table.rows || ceiling < minCosine || (exact.length >= limit && kthLargest(Float64Array.from(exact), limit) > ceiling)) {
        for (let j = 0; j < kept.length; j++) yield [kept[j]!, exact[j]!];
        return;
      }
      count *= 4;
    }
  }

  neighbours(key: string, fanOut: number): string[] {
    const c = this.candidate(key);
    if (c === undefined) return [];
    const evidence = c.evidence.map(itemKey).filter((k) => this.has(k));
    const evidencedBy = this.visibleKeys(this.corpus.evidencing(key), fanOut, key);
    const sameEntity: string[] = [];
    const seen = new Set<string>([key]);
    for (const entity of c.entities ?? []) {
      const members = this.forest.classOf(entity);
      const naming =
        members.length === 1
          ? this.corpus.namingEntity(entity)
          : [...new Set(members.flatMap((m) => this.corpus.namingEntity(m)))].sort(this.corpus.compareAt);
      if (this.namedByMore(naming, ENTITY_HUB)) continue;
      for (const i of naming) {
        if (sameEntity.length >= fanOut) break;
        const k = this.corpus.versions[i]!.key;
        if (this.visible[i] && !seen.has(k)) {
          seen.add(k);
          sameEntity.push(k);
        }
      }
    }
    return [evidence, evidencedBy, this.turnsNextTo(c, key), sameEntity].flatMap((list) => list.slice(0, fanOut));
  }

  /** Whether more than `limit` visible items are among the versions `naming` (counted no further than that). */
  private namedByMore(naming: readonly number[], limit: number): boolean {
    const items = new Set<string>();
    for (const i of naming) {
      if (!this.visible[i]) continue;
      items.add(this.corpus.versions[i]!.key);
      if (items.size > limit) return true;
    }
    return false;
  }

  /** Built once: a closure made per candidate would cost ~1 µs under tsx (docs/architecture.md, "Compiled, and hot paths under tsx"). */
  private readonly mentionsAtR = { has: (mentionId: string) => this.countsAt('mention', mentionId) };

  private build(i: number): Candidate {
    const v = this.corpus.versions[i]!;
    const { forest } = this;
    switch (v.kind) {
      case 'fact': {
        const f = v.fact!;
        const { dst } = f;
        if (dst === null) throw new Error(`fact ${v.id}: an erased version is no search item`);
        const view = {
          factId: v.id,
          src: forest.canonical(f.src),
          rel: f.rel,
          dst: typeof dst === 'string' ? forest.canonical(dst) : dst,
          validFrom: v.validFrom!,
          validTo: v.validTo!,
          recordedFrom: v.recordedFrom,
          evidence: f.evidence,
        };
        return factCandidate(view, this.nameOf, this.mentionsAtR);
      }
      case 'event':
        return eventCandidate({
          eventId: v.id,
          summary: v.text,
          timeSpan: { from: v.validFrom!, to: v.validTo! },
          participants: v.participants!.map((p) => ({ entityId: forest.canonical(p.entityId), role: p.role })),
          includesFacts: this.listed(i),
          recordedFrom: v.recordedFrom,
        });
      case 'episode':
        return episodeCandidate({
          episodeId: v.id,
          title: v.text,
          window: { from: v.validFrom!, to: v.validTo! },
          events: this.listed(i),
          recordedFrom: v.recordedFrom,
        });
      case 'mention':
        return mentionCandidate({
          mentionId: v.id,
          docId: v.docId!,
          text: v.mentionText!,
          speaker: v.speaker!,
          occurredAt: v.occurredAt ?? null,
          recordedFrom: v.recordedFrom,
        });
    }
  }

  /** An entity's name at r (its canonical entity's), or the id when not recorded by r, erased, or named only after r. */
  private readonly nameOf = (entityId: string): string => {
    const entity = this.corpus.entities.get(this.forest.canonical(entityId));
    const named = entity !== undefined && this.recorded('entity', entity) && Date.parse(nameShownFrom(entity)) <= this.r;
    return (named ? entity.name : null) ?? this.forest.canonical(entityId);
  };

  /**
   * Facts naming an entity merged by r are shown with canonical names, and those naming an entity
   * named again after r (after an erasure) with its id: their text (and BM25 terms) at the cut.
   */
  private renderMergedFacts(): void {
    const renamedAfter = [...this.corpus.renamed].filter((id) => Date.parse(nameShownFrom(this.corpus.entities.get(id)!)) > this.r);
    for (const merged of [...this.forest.mergedInto.keys(), ...renamedAfter]) {
      for (const i of this.corpus.namingEntity(merged)) {
        const v = this.corpus.versions[i]!;
        const dst = v.fact?.dst ?? null;
        if (!this.visible[i] || v.fact === undefined || dst === null || this.rendered.has(i)) continue;
        const text = factText(
          {
            src: this.forest.canonical(v.fact.src),
            rel: v.fact.rel,
            dst: typeof dst === 'string' ? this.forest.canonical(dst) : dst,
          },
          this.nameOf,
        );
        this.rendered.set(i, { text, terms: analyze(text) });
        (this.renderedFlags ??= new Uint8Array(this.corpus.size))[i] = 1;
      }
    }
  }

  private textOf(i: number): string {
    return this.renderedFlags?.[i] ? this.rendered.get(i)!.text : this.corpus.versions[i]!.text;
  }

  private lengthOf(i: number): number {
    return this.renderedFlags?.[i] ? this.rendered.get(i)!.terms.length : this.corpus.lengths[i]!;
  }

  /** Untimed: a mention without occurredAt (itemInterval is null). */
  private isTimed(i: number): boolean {
    const v = this.corpus.versions[i]!;
    return v.kind !== 'mention' || (v.occurredAt !== null && v.occurredAt !== undefined);
  }

  /** The BM25 corpus: the visible items, or only the timed ones. */
  private included(timedOnly: boolean): Uint8Array {
    if (!timedOnly) return this.visible;
    if (this.timed === undefined) {
      this.timed = new Uint8Array(this.visible.length);
      for (let i = 0; i < this.visible.length; i++) if (this.visible[i] && this.isTimed(i)) this.timed[i] = 1;
    }
    return this.timed;
  }

  private collection(included: Uint8Array): { n: number; totalLength: number } {
    let stats = this.stats.get(included);
    if (stats === undefined) {
      stats = { n: 0, totalLength: 0 };
      for (let i = 0; i < included.length; i++) {
        if (!included[i]) continue;
        stats.n += 1;
        stats.totalLength += this.lengthOf(i);
      }
      this.stats.set(included, stats);
    }
    return stats;
  }

  /** Rendered facts of the corpus `included` with `term`, and its frequency in each. */
  private renderedWith(term: string, included: Uint8Array): [number, number][] {
    const found: [number, number][] = [];
    for (const [i, { terms }] of this.rendered) {
      if (!included[i]) continue;
      const f = terms.filter((t) => t === term).length;
      if (f > 0) found.push([i, f]);
    }
    return found.sort((a, b) => a[0] - b[0]);
  }

  private visibleVersion(key: string): number | undefined {
    for (const i of this.corpus.versionsOf(key)) if (this.visible[i]) return i;
    return undefined;
  }

  private visibleKeys(refs: readonly number[], limit: number, except: string): string[] {
    const keys: string[] = [];
    for (const i of refs) {
      if (keys.length >= limit) break;
      const k = this.corpus.versions[i]!.key;
      if (this.visible[i] && k !== except && !keys.includes(k)) keys.push(k);
    }
    return keys;
  }

  private turnsNextTo(c: Candidate, key: string): string[] {
    if (c.kind !== 'mention' || c.docId === undefined) return [];
    const turns = this.corpus.turnsOf(c.docId);
    const at = turns.indexOf(this.visibleVersion(key)!);
    const near: string[] = [];
    for (let j = at - 1; j >= 0; j--) {
      if (this.visible[turns[j]!]) {
        near.push(this.corpus.versions[turns[j]!]!.key);
        break;
      }
    }
    for (let j = at + 1; j < turns.length; j++) {
      if (this.visible[turns[j]!]) {
        near.push(this.corpus.versions[turns[j]!]!.key);
        break;
      }
    }
    return near;
  }

  /** An entity or merge is in the cut at r (its kind's record rule; they have no validity). */
  private recorded<K extends 'entity' | 'merge'>(kind: K, record: K extends 'entity' ? EntityNameRow : MergeRecord): boolean {
    const recordedFrom = CORPUS_CUT[kind].recordedFrom as (record: EntityNameRow | MergeRecord) => string;
    return inRecordTime(ruleOf(kind).record, Date.parse(recordedFrom(record)), null, this.r);
  }

  /** Row i's rule requires members, and enough of them count at r: `requirementHolds`, as a loop (no callback per member). */
  private requirementMet(i: number): boolean {
    const requires = this.plans[this.corpus.kinds[i]!]!.plan.requires!;
    const members = requires.of(this.corpus.versions[i]!);
    const every = requires.quantifier === 'every';
    for (let k = 0; k < members.length; k++) if (this.countsAt(requires.kind, members[k]!) !== every) return !every;
    return every;
  }

  /** The members row i's answer lists at r (its rule's `lists`). */
  private listed(i: number): string[] {
    const requires = this.plans[this.corpus.kinds[i]!]!.plan.requires!;
    return listedMembers(requires, requires.of(this.corpus.versions[i]!), this.counts[requires.kind]);
  }

  /** Whether `id` of `kind` counts as a member at r: one of its versions is in the cut ('*', r). */
  private countsAt(kind: ItemKind, id: string): boolean {
    const versions = this.corpus.versionsOf(itemKey({ kind, id }));
    for (let j = 0; j < versions.length; j++) if (this.inCutAtAnyValidity(versions[j]!)) return true;
    return false;
  }

  /** Row i is in the cut ('*', r): its record rule holds and, if it requires members, they count (then memoised per view). */
  private inCutAtAnyValidity(i: number): boolean {
    const bound = this.plans[this.corpus.kinds[i]!]!;
    if (!(bound.from[i]! <= this.r) || (bound.to !== null && !(this.r < bound.to[i]!))) return false;
    if (!bound.requires) return true;
    const counted = (this.counted ??= new Uint8Array(this.corpus.size));
    if (counted[i] === 0) counted[i] = this.requirementMet(i) ? 1 : 2;
    return counted[i] === 1;
  }
}

/**
 * k-NN's per-version scores, shared by every search (they run one at a time
 * on this thread and leave them zeroed): a corpus-sized allocation per search would
 * be external memory the GC of a large heap reacts to.
 */
class Scratch {
  scores = new Float64Array(0);
  touched = new Int32Array(0);

  take(size: number): { scores: Float64Array; touched: Int32Array } {
    if (this.scores.length < size) {
      const capacity = Math.max(size, 2 * this.scores.length);
      this.scores = new Float64Array(capacity);
      this.touched = new Int32Array(capacity);
    }
    return this;
  }
}

const scratch = new Scratch();
