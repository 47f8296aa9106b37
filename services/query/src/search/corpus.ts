import {
  type EdgeTarget,
  type EntityNameRow,
  type Instant,
  type MergeRecord,
  type Participant,
  type SearchDelta,
  type Watermark,
  compareIds,
  factText,
  mentionText,
} from '@memotrace/domain';
import { analyze } from './analyze';
import { CorpusVectors } from './corpus-vectors';
import { byDocumentOrder } from './expand';
import type { ItemKind } from './items';
import { itemKey } from './recall-backend';

/**
 * Every version of every search item of one memory, kept in process and fed by
 * deltas (`SearchFeed`), so a search never re-reads the memory: cutting is a scan
 * of typed arrays, BM25 reads the postings of the query's terms only. Versions are
 * appended; the only later change to one is the close of its record interval.
 * Texts are analysed once, when the version arrives.
 */
export interface FactPart {
  src: string;
  rel: string;
  dst: EdgeTarget;
  evidence: string[];
}

export interface ItemVersion {
  kind: ItemKind;
  id: string;
  key: string;
  recordedFrom: Instant;
  /** Validity (facts), time span (events), window (episodes); absent for mentions. */
  validFrom?: Instant;
  validTo?: Instant | null;
  occurredAt?: Instant | null;
  /** Rendered with the entity names as stored; a fact naming a merged entity is rendered again at the cut. */
  text: string;
  fact?: FactPart;
  participants?: Participant[];
  includesFacts?: string[];
  episodeEvents?: string[];
  docId?: string;
  speaker?: string | null;
  mentionText?: string;
}

/** Answers list items of a cut in this order (events, facts, mentions, episodes; by id within a kind). */
export const KIND_RANK: Readonly<Record<ItemKind, number>> = { event: 0, fact: 1, mention: 2, episode: 3 };

export function compareVersions(a: ItemVersion, b: ItemVersion): number {
  return KIND_RANK[a.kind] - KIND_RANK[b.kind] || compareIds(a.id, b.id);
}

/** Answer order of two item keys (`itemKey`). */
export function compareItemKeys(a: string, b: string): number {
  const [kindA, idA] = a.split('\u0000') as [ItemKind, string];
  const [kindB, idB] = b.split('\u0000') as [ItemKind, string];
  return KIND_RANK[kindA] - KIND_RANK[kindB] || compareIds(idA, idB);
}

/** One term's postings: the versions whose text has it, and how often. */
export interface Postings {
  versions: number[];
  frequencies: number[];
}

const NO_END = Number.POSITIVE_INFINITY;
const ms = (instant: Instant | null | undefined, open: number) => (instant === null || instant === undefined ? open : Date.parse(instant));

/** Lists of version indices by key, kept in compareVersions order: sorted again only when read after an append. */
class RefLists {
  private readonly lists = new Map<string, number[]>();
  private readonly unsorted = new Set<string>();

  add(key: string, index: number): void {
    const list = this.lists.get(key);
    if (list === undefined) this.lists.set(key, [index]);
    else {
      list.push(index);
      this.unsorted.add(key);
    }
  }

  sorted(key: string, versions: readonly ItemVersion[]): readonly number[] {
    const list = this.lists.get(key);
    if (list === undefined) return [];
    if (this.unsorted.delete(key)) list.sort((a, b) => compareVersions(versions[a]!, versions[b]!) || a - b);
    return list;
  }
}

export class MemoryCorpus {
  readonly versions: ItemVersion[] = [];
  /** Record interval and validity of each version, epoch ms (open ends infinite), for the cut scan. */
  recFrom = new Float64Array(1024);
  recTo = new Float64Array(1024);
  validFrom = new Float64Array(1024);
  validTo = new Float64Array(1024);
  /** Number of analysed terms of each version's text (BM25 document length). */
  lengths = new Int32Array(1024);
  /** KIND_RANK of each version. */
  kinds = new Int32Array(1024);
  /** The read models' version number (facts, events, episodes; 0 for mentions). */
  versionNos = new Int32Array(1024);
  readonly postings = new Map<string, Postings>();
  /** Versions of each item (kind + id), oldest first. */
  readonly byItem = new Map<string, number[]>();
  readonly entities = new Map<string, EntityNameRow>();
  readonly merges: (MergeRecord & { seq: number })[] = [];
  /** Seqs of `merges`, to skip a merge a delta brings again. */
  private readonly mergeSeqs = new Set<number>();
  /** The latest record time seen, and how many record times (row opened, closed, recorded) are at it: the next delta starts there. */
  watermark: Watermark | null = null;
  /** The latest finite validity boundary (a version's validFrom or validTo), epoch ms. */
  validityBound = Number.NEGATIVE_INFINITY;
  /** Counts the deltas applied: a cut's view is only valid for the generation it was made of. */
  generation = 0;
  private readonly byEntityRefs = new RefLists();
  private readonly evidenceRefs = new RefLists();
  private readonly docTurns = new Map<string, { refs: number[]; sorted: boolean }>();
  private readonly vectorTables = new Map<string, CorpusVectors>();

  get size(): number {
    return this.versions.length;
  }

  /** The versions' vectors of one model, as far as searches have found them. */
  vectorsOf(model: string): CorpusVectors {
    let table = this.vectorTables.get(model);
    if (table === undefined) this.vectorTables.set(model, (table = new CorpusVectors()));
    return table;
  }

  apply(delta: SearchDelta): void {
    this.generation += 1;
    for (const entity of delta.entities) {
      if (this.entities.has(entity.entityId)) continue;
      this.entities.set(entity.entityId, entity);
      this.see(entity.recordedFrom);
    }
    for (const merge of delta.merges) {
      if (this.mergeSeqs.has(merge.seq)) continue;
      this.mergeSeqs.add(merge.seq);
      this.merges.push(merge);
      this.see(merge.recordedAt);
    }
    this.merges.sort((a, b) => a.seq - b.seq);
    const nameOf = (id: string) => this.entities.get(id)?.name ?? id;
    for (const f of delta.facts) {
      const fact = { src: f.src, rel: f.rel, dst: f.dst, evidence: f.evidence };
      this.upsert(f.versionNo, f.recordedTo, {
        kind: 'fact',
        id: f.factId,
        key: '',
        recordedFrom: f.recordedFrom,
        validFrom: f.validFrom,
        validTo: f.validTo,
        text: factText(fact, nameOf),
        fact,
      });
    }
    for (const e of delta.events) {
      this.upsert(e.versionNo, e.recordedTo, {
        kind: 'event',
        id: e.eventId,
        key: '',
        recordedFrom: e.recordedFrom,
        validFrom: e.timeSpan.from,
        validTo: e.timeSpan.to,
        text: e.summary,
        participants: e.participants,
        includesFacts: e.includesFacts,
      });
    }
    for (const e of delta.episodes) {
      this.upsert(e.versionNo, e.recordedTo, {
        kind: 'episode',
        id: e.episodeId,
        key: '',
        recordedFrom: e.recordedFrom,
        validFrom: e.window.from,
        validTo: e.window.to,
        text: e.title,
        episodeEvents: e.events,
      });
    }
    for (const m of delta.mentions) {
      this.upsert(0, null, {
        kind: 'mention',
        id: m.mentionId,
        key: '',
        recordedFrom: m.recordedFrom,
        occurredAt: m.occurredAt,
        text: mentionText(m),
        docId: m.docId,
        speaker: m.speaker,
        mentionText: m.text,
      });
    }
  }

  /** Version indices of the item, oldest first. */
  versionsOf(key: string): readonly number[] {
    return this.byItem.get(key) ?? [];
  }

  /** Facts and events naming the entity (as stored), in answer order. */
  namingEntity(entityId: string): readonly number[] {
    return this.byEntityRefs.sorted(entityId, this.versions);
  }

  /** Versions whose evidence names the item `key` (fact evidence, event includesFacts, episode events), in answer order. */
  evidencing(key: string): readonly number[] {
    return this.evidenceRefs.sorted(key, this.versions);
  }

  /** Turns of a document in document order. */
  turnsOf(docId: string): readonly number[] {
    const turns = this.docTurns.get(docId);
    if (turns === undefined) return [];
    if (!turns.sorted) {
      turns.refs.sort((a, b) => byDocumentOrder(this.versions[a]!, this.versions[b]!));
      turns.sorted = true;
    }
    return turns.refs;
  }

  private upsert(versionNo: number, recordedTo: Instant | null, version: ItemVersion): void {
    version.key = itemKey(version);
    const list = this.byItem.get(version.key);
    const known = list?.find((i) => this.versionNos[i] === versionNo);
    if (known !== undefined) {
      // Only a close can change a stored version.
      if (recordedTo !== null && this.recTo[known] === NO_END) {
        this.recTo[known] = Date.parse(recordedTo);
        this.see(recordedTo);
      }
      return;
    }
    this.see(version.recordedFrom);
    this.see(recordedTo);
    const index = this.versions.length;
    this.grow(index + 1);
    this.versions.push(version);
    this.recFrom[index] = Date.parse(version.recordedFrom);
    this.recTo[index] = ms(recordedTo, NO_END);
    this.validFrom[index] = ms(version.validFrom, Number.NEGATIVE_INFINITY);
    this.validTo[index] = ms(version.validTo, NO_END);
    // validFrom is finite or -infinity, validTo finite or +infinity (open).
    const to = this.validTo[index]!;
    this.validityBound = Math.max(this.validityBound, this.validFrom[index]!, to === NO_END ? Number.NEGATIVE_INFINITY : to);
    this.kinds[index] = KIND_RANK[version.kind];
    this.versionNos[index] = versionNo;
    if (list) list.push(index);
    else this.byItem.set(version.key, [index]);
    this.index(index, version);
  }

  private index(index: number, version: ItemVersion): void {
    const terms = analyze(version.text);
    this.lengths[index] = terms.length;
    const frequencies = SCRATCH;
    frequencies.clear();
    for (const term of terms) frequencies.set(term, (frequencies.get(term) ?? 0) + 1);
    for (const [term, frequency] of frequencies) {
      let postings = this.postings.get(term);
      if (postings === undefined) this.postings.set(term, (postings = { versions: [], frequencies: [] }));
      postings.versions.push(index);
      postings.frequencies.push(frequency);
    }
    const entities: string[] = [];
    if (version.fact) {
      entities.push(version.fact.src);
      if (typeof version.fact.dst === 'string' && version.fact.dst !== version.fact.src) entities.push(version.fact.dst);
      this.addEvidence(index, 'mention', version.fact.evidence);
    }
    for (const p of version.participants ?? []) if (!entities.includes(p.entityId)) entities.push(p.entityId);
    this.addEvidence(index, 'fact', version.includesFacts);
    this.addEvidence(index, 'event', version.episodeEvents);
    for (const entity of entities) this.byEntityRefs.add(entity, index);
    if (version.docId !== undefined) {
      const turns = this.docTurns.get(version.docId);
      if (turns) {
        turns.refs.push(index);
        turns.sorted = false;
      } else this.docTurns.set(version.docId, { refs: [index], sorted: true });
    }
  }

  /** Each distinct id a version cites as evidence points back at it. */
  private addEvidence(index: number, kind: ItemKind, ids: readonly string[] | undefined): void {
    for (const id of new Set(ids)) this.evidenceRefs.add(itemKey({ kind, id }), index);
  }

  /** Counts a record time of a row new to the corpus (each row's opening, closing, recording once). */
  private see(instant: Instant | null | undefined): void {
    if (instant === null || instant === undefined) return;
    if (this.watermark === null || instant > this.watermark.at) this.watermark = { at: instant, seen: 1 };
    else if (instant === this.watermark.at) this.watermark.seen += 1;
  }

  private grow(size: number): void {
    if (size <= this.recFrom.length) return;
    const capacity = Math.max(size, this.recFrom.length * 2);
    const grown = <T extends Float64Array | Int32Array>(array: T, make: (n: number) => T): T => {
      const next = make(capacity);
      next.set(array);
      return next;
    };
    this.recFrom = grown(this.recFrom, (n) => new Float64Array(n));
    this.recTo = grown(this.recTo, (n) => new Float64Array(n));
    this.validFrom = grown(this.validFrom, (n) => new Float64Array(n));
    this.validTo = grown(this.validTo, (n) => new Float64Array(n));
    this.lengths = grown(this.lengths, (n) => new Int32Array(n));
    this.kinds = grown(this.kinds, (n) => new Int32Array(n));
    this.versionNos = grown(this.versionNos, (n) => new Int32Array(n));
  }
}

/** Term frequencies of the text being indexed (one at a time: indexing is synchronous). */
const SCRATCH = new Map<string, number>();
