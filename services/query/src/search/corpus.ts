import * as domain from '@memotrace/domain';
import {
  type EdgeTarget,
  type EntityNameRow,
  type EpochMs,
  type FactVersionRow,
  type Instant,
  type ItemKind,
  type MergeRecord,
  type Participant,
  type SearchDelta,
  type Watermark,
  compareIds,
} from '@memotrace/domain';
import { analyze } from './analyze';
import { CorpusVectors } from './corpus-vectors';
import { byDocumentOrder } from './expand';
import { itemKey } from './recall-backend';

/** Read once: a function imported from a package that re-exports it is a getter call per use under tsx. */
const { factText, instantFromMillis, mentionText, KIND_RANK } = domain;

/**
 * Every version of every search item of one memory, kept in process and fed by
 * deltas (`SearchFeed`), so a search never re-reads the memory: cutting is a scan
 * of typed arrays, BM25 reads the postings of the query's terms only. Versions are
 * appended; the only later change to one is the close of its record interval.
 * Texts are analysed once, when the version arrives. A version whose content was erased
 * (SPEC §5.2) is kept for the cut rules (an event's facts, an episode's events, a fact's
 * evidence) with no text: it is never a search item.
 */
export interface FactPart {
  src: string;
  rel: string;
  /** Null when its literal was erased. */
  dst: EdgeTarget | null;
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
  /** Rendered with the entity names as stored; a fact naming a merged entity is rendered again at the cut. Empty when erased. */
  text: string;
  fact?: FactPart;
  participants?: Participant[];
  includesFacts?: string[];
  episodeEvents?: string[];
  docId?: string;
  speaker?: string | null;
  mentionText?: string;
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

/** A version's times as instants (validity, time span or window: not for mentions). */
interface Instants {
  recordedFrom: Instant;
  validFrom?: Instant;
  validTo?: Instant | null;
}

/**
 * A version as the corpus keeps it: its record and valid times live in the corpus's columns and
 * become instants when an answer first reads one (it shows a few versions; the corpus holds them all).
 * One class per kind, each with its own fields only.
 */
abstract class StoredVersion implements ItemVersion {
  private instants: Instants | undefined = undefined;

  constructor(
    private readonly corpus: MemoryCorpus,
    private readonly index: number,
    readonly kind: ItemKind,
    readonly id: string,
    readonly key: string,
    readonly text: string,
  ) {}

  get recordedFrom(): Instant {
    return this.shown().recordedFrom;
  }

  protected shown(): Instants {
    if (this.instants === undefined) {
      const { recFrom, validFrom, validTo } = this.corpus;
      const i = this.index;
      const to = validTo[i]!;
      this.instants =
        this.kind === 'mention'
          ? { recordedFrom: instantFromMillis(recFrom[i]!) }
          : {
              recordedFrom: instantFromMillis(recFrom[i]!),
              validFrom: instantFromMillis(validFrom[i]!),
              validTo: to === NO_END ? null : instantFromMillis(to),
            };
    }
    return this.instants;
  }
}

/** A fact, event or episode version: its validity, time span or window is the corpus's valid-time columns. */
abstract class ValidVersion extends StoredVersion {
  get validFrom(): Instant {
    return this.shown().validFrom!;
  }

  get validTo(): Instant | null {
    return this.shown().validTo ?? null;
  }
}

class StoredFact extends ValidVersion {
  constructor(
    corpus: MemoryCorpus,
    index: number,
    id: string,
    key: string,
    text: string,
    readonly fact: FactPart,
  ) {
    super(corpus, index, 'fact', id, key, text);
  }
}

class StoredEvent extends ValidVersion {
  constructor(
    corpus: MemoryCorpus,
    index: number,
    id: string,
    key: string,
    text: string,
    readonly participants: Participant[],
    readonly includesFacts: string[],
  ) {
    super(corpus, index, 'event', id, key, text);
  }
}

class StoredEpisode extends ValidVersion {
  constructor(
    corpus: MemoryCorpus,
    index: number,
    id: string,
    key: string,
    text: string,
    readonly episodeEvents: string[],
  ) {
    super(corpus, index, 'episode', id, key, text);
  }
}

/** A mention keeps its instant: document order compares it. */
class StoredMention extends StoredVersion {
  constructor(
    corpus: MemoryCorpus,
    index: number,
    id: string,
    key: string,
    text: string,
    readonly occurredAt: Instant | null,
    readonly docId: string,
    readonly speaker: string | null,
    readonly mentionText: string,
  ) {
    super(corpus, index, 'mention', id, key, text);
  }
}

/** A text as the index takes it: the postings of its distinct terms, each one's frequency, and its number of terms. */
interface Analysis {
  postings: Postings[];
  frequencies: number[];
  length: number;
}

/** Whether the row has these parts (src, rel, dst, evidence). */
function sameFact(part: FactPart, row: FactVersionRow): boolean {
  if (part.src !== row.src || part.rel !== row.rel || !sameIds(part.evidence, row.evidence)) return false;
  const a = part.dst;
  const b = row.dst;
  return a === null || b === null || typeof a === 'string' || typeof b === 'string' ? a === b : a.literal === b.literal && a.datatype === b.datatype;
}

/**
 * When the entity's name (as the row has it) was given: a registration after an erasure names an
 * entity again (new content), shown from then on; otherwise its recording.
 */
export function nameShownFrom(row: EntityNameRow): Instant {
  return row.namedFrom ?? row.recordedFrom;
}

/**
 * A row the feed marks erased. Erased content reads null, but a fact naming an entity keeps its
 * dst: only the mark tells its erasure.
 */
function markedErased(row: object): boolean {
  return 'erased' in row && row.erased === true;
}

function sameIds(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Lists of version indices by key, kept in one order: sorted again only when read after an append. */
class RefLists {
  private readonly lists = new Map<string, { refs: number[]; sorted: boolean }>();

  constructor(private readonly order: (a: number, b: number) => number) {}

  add(key: string, index: number): void {
    const list = this.lists.get(key);
    if (list === undefined) this.lists.set(key, { refs: [index], sorted: true });
    else {
      list.refs.push(index);
      list.sorted = false;
    }
  }

  sorted(key: string): readonly number[] {
    const list = this.lists.get(key);
    if (list === undefined) return [];
    if (!list.sorted) {
      list.refs.sort(this.order);
      list.sorted = true;
    }
    return list.refs;
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
  /** 1 for a version whose content was erased: it counts for the cut rules, and is no search item. */
  erased = new Uint8Array(1024);
  readonly postings = new Map<string, Postings>();

  /** Answer order of two versions by index (kinds in KIND_RANK order, by id within a kind), from the kinds column. */
  readonly compareAt = (a: number, b: number): number => this.kinds[a]! - this.kinds[b]! || compareIds(this.versions[a]!.id, this.versions[b]!.id);

  /** Versions of each item (kind + id), oldest first. */
  readonly byItem = new Map<string, number[]>();
  readonly entities = new Map<string, EntityNameRow>();
  /** Entities named again after an erasure (`namedFrom` later than their recording): before it, a cut shows their id. */
  readonly renamed = new Set<string>();
  /**
   * A delta brought an entity the corpus holds with another name (named again after an erasure):
   * the facts rendered with the name it had are wrong, so the corpus is read again whole.
   */
  stale = false;
  /** The memory's erasure mark (its latest erasure's log position) when it was read: a store behind it may hold vectors of erased texts. */
  erasedAt = 0;
  readonly merges: (MergeRecord & { seq: number })[] = [];
  /** Seqs of `merges`, to skip a merge a delta brings again. */
  private readonly mergeSeqs = new Set<number>();
  /** The latest record time seen (epoch ms), and how many record times (row opened, closed, recorded) are at it. */
  private latest = Number.NEGATIVE_INFINITY;
  private seenAtLatest = 0;
  private mark: Watermark | null = null;
  /** The latest finite validity boundary (a version's validFrom or validTo), epoch ms. */
  validityBound = Number.NEGATIVE_INFINITY;
  /** Counts the deltas applied: a cut's view is only valid for the generation it was made of. */
  generation = 0;
  private readonly answerOrder = (a: number, b: number) => this.compareAt(a, b) || a - b;
  private readonly byEntityRefs = new RefLists(this.answerOrder);
  private readonly evidenceRefs = new RefLists(this.answerOrder);
  private readonly docTurns = new RefLists((a, b) => byDocumentOrder(this.versions[a]!, this.versions[b]!));
  private readonly vectorTables = new Map<string, CorpusVectors>();
  /** The text analysed last, and its analysis: the postings it names stay the same (they only grow). */
  private lastText: string | null = null;
  private lastAnalysis: Analysis | null = null;
  /** Versions from this index on were rendered with the names the corpus has now (names are only added). */
  private namedFrom = 0;

  get size(): number {
    return this.versions.length;
  }

  /** The versions' vectors of one model, as far as searches have found them. */
  vectorsOf(model: string): CorpusVectors {
    let table = this.vectorTables.get(model);
    if (table === undefined) this.vectorTables.set(model, (table = new CorpusVectors()));
    return table;
  }

  /** The latest record time seen, and how many record times (row opened, closed, recorded) are at it: the next delta starts there. */
  get watermark(): Watermark | null {
    if (this.latest === Number.NEGATIVE_INFINITY) return null;
    return (this.mark ??= { at: instantFromMillis(this.latest), seen: this.seenAtLatest });
  }

  apply(delta: SearchDelta): void {
    this.generation += 1;
    for (const entity of delta.entities) {
      const known = this.entities.get(entity.entityId);
      if (known !== undefined) {
        // Named again: a record time of its own, new to the corpus (which is read again whole).
        if (nameShownFrom(known) !== nameShownFrom(entity)) this.see(Date.parse(nameShownFrom(entity)));
        if (known.name !== entity.name || nameShownFrom(known) !== nameShownFrom(entity)) this.stale = true;
        continue;
      }
      this.entities.set(entity.entityId, entity);
      this.namedFrom = this.size;
      this.see(Date.parse(entity.recordedFrom));
      if (nameShownFrom(entity) !== entity.recordedFrom) {
        this.renamed.add(entity.entityId);
        this.see(Date.parse(nameShownFrom(entity)));
      }
    }
    for (const merge of delta.merges) {
      if (this.mergeSeqs.has(merge.seq)) continue;
      this.mergeSeqs.add(merge.seq);
      this.merges.push(merge);
      this.see(Date.parse(merge.recordedAt));
    }
    this.merges.sort((a, b) => a.seq - b.seq);
    const nameOf = (id: string) => this.entities.get(id)?.name ?? id;
    for (const f of delta.facts) {
      const key = this.keyOf('fact', f.factId);
      const list = this.byItem.get(key);
      if (list !== undefined && this.known(list, f.versionNo, f.recordedTo)) continue;
      // Versions of one fact mostly differ in their times only: a version takes the parts of the
      // fact's latest one when they are the same, and its text too when rendered with the same names.
      const latest = list === undefined ? -1 : list[list.length - 1]!;
      const previous = latest < 0 ? undefined : this.versions[latest]!;
      const fact: FactPart =
        previous?.fact !== undefined && sameFact(previous.fact, f) ? previous.fact : { src: f.src, rel: f.rel, dst: f.dst, evidence: f.evidence };
      const { dst } = fact;
      const erased = dst === null || markedErased(f);
      const text = erased
        ? ''
        : previous !== undefined && fact === previous.fact && latest >= this.namedFrom && this.erased[latest] === 0
          ? previous.text
          : factText({ src: fact.src, rel: fact.rel, dst }, nameOf);
      this.append(
        new StoredFact(this, this.size, previous?.id ?? f.factId, key, text, fact),
        list,
        f.versionNo,
        f.recordedFrom,
        f.recordedTo,
        f.validFrom,
        f.validTo,
        erased,
      );
    }
    for (const e of delta.events) {
      const key = this.keyOf('event', e.eventId);
      const list = this.byItem.get(key);
      if (list !== undefined && this.known(list, e.versionNo, e.recordedTo)) continue;
      const summary = markedErased(e) ? null : e.summary;
      this.append(
        new StoredEvent(this, this.size, e.eventId, key, summary ?? '', e.participants, e.includesFacts),
        list,
        e.versionNo,
        e.recordedFrom,
        e.recordedTo,
        e.timeSpan.from,
        e.timeSpan.to,
        summary === null,
      );
    }
    for (const e of delta.episodes) {
      const key = this.keyOf('episode', e.episodeId);
      const list = this.byItem.get(key);
      if (list !== undefined && this.known(list, e.versionNo, e.recordedTo)) continue;
      this.append(
        new StoredEpisode(this, this.size, e.episodeId, key, e.title, e.events),
        list,
        e.versionNo,
        e.recordedFrom,
        e.recordedTo,
        e.window.from,
        e.window.to,
        false,
      );
    }
    for (const m of delta.mentions) {
      const key = this.keyOf('mention', m.mentionId);
      const list = this.byItem.get(key);
      if (list !== undefined && this.known(list, 0, null)) continue;
      const occurredAt = m.occurredAt === null ? null : instantFromMillis(m.occurredAt);
      const said = markedErased(m) ? null : m.text;
      const speaker = said === null ? null : m.speaker;
      this.append(
        new StoredMention(
          this,
          this.size,
          m.mentionId,
          key,
          said === null ? '' : mentionText({ speaker, text: said }),
          occurredAt,
          m.docId,
          speaker,
          said ?? '',
        ),
        list,
        0,
        m.recordedFrom,
        null,
        null,
        null,
        said === null,
      );
    }
  }

  /** Version indices of the item, oldest first. */
  versionsOf(key: string): readonly number[] {
    return this.byItem.get(key) ?? [];
  }

  /** Facts and events naming the entity (as stored), in answer order. */
  namingEntity(entityId: string): readonly number[] {
    return this.byEntityRefs.sorted(entityId);
  }

  /** Versions whose evidence names the item `key` (fact evidence, event includesFacts, episode events), in answer order. */
  evidencing(key: string): readonly number[] {
    return this.evidenceRefs.sorted(key);
  }

  /** Turns of a document in document order. */
  turnsOf(docId: string): readonly number[] {
    return this.docTurns.sorted(docId);
  }

  /** The item's key: the last version's when it is of the same item (a full read brings an item's versions one after another). */
  private keyOf(kind: ItemKind, id: string): string {
    const last = this.versions[this.versions.length - 1];
    return last !== undefined && last.id === id && last.kind === kind ? last.key : itemKey({ kind, id });
  }

  /** Whether the item's `list` holds this version already; if so, a close is all a delta can bring of it. */
  private known(list: readonly number[], versionNo: number, recordedTo: EpochMs | null): boolean {
    for (let k = 0; k < list.length; k++) {
      const known = list[k]!;
      if (this.versionNos[known] !== versionNo) continue;
      if (recordedTo !== null && this.recTo[known] === NO_END) {
        this.recTo[known] = recordedTo;
        this.see(recordedTo);
      }
      return true;
    }
    return false;
  }

  /** Appends a version new to the corpus (made at index `size`) to its item's `list`; an open end is null. */
  private append(
    version: StoredVersion,
    list: number[] | undefined,
    versionNo: number,
    recordedFrom: EpochMs,
    recordedTo: EpochMs | null,
    validFrom: EpochMs | null,
    validTo: EpochMs | null,
    erased: boolean,
  ): void {
    this.see(recordedFrom);
    if (recordedTo !== null) this.see(recordedTo);
    const index = this.versions.length;
    this.grow(index + 1);
    this.versions.push(version);
    this.recFrom[index] = recordedFrom;
    this.recTo[index] = recordedTo ?? NO_END;
    this.validFrom[index] = validFrom ?? Number.NEGATIVE_INFINITY;
    const to = (this.validTo[index] = validTo ?? NO_END);
    // validFrom is finite or -infinity, validTo finite or +infinity (open).
    this.validityBound = Math.max(this.validityBound, this.validFrom[index]!, to === NO_END ? Number.NEGATIVE_INFINITY : to);
    this.kinds[index] = KIND_RANK[version.kind];
    this.versionNos[index] = versionNo;
    this.erased[index] = erased ? 1 : 0;
    if (list === undefined) this.byItem.set(version.key, [index]);
    // A push to a one-element array reserves room for many more: most items have a version or two.
    else if (list.length === 1) this.byItem.set(version.key, [list[0]!, index]);
    else list.push(index);
    this.index(index, version);
  }

  private index(index: number, version: ItemVersion): void {
    if (this.erased[index] === 0) this.addText(index, version.text);
    else this.lengths[index] = 0;
    if (version.fact) {
      const { src, dst } = version.fact;
      this.byEntityRefs.add(src, index);
      if (typeof dst === 'string' && dst !== src) this.byEntityRefs.add(dst, index);
      this.addEvidence(index, 'mention', version.fact.evidence);
    }
    if (version.participants) {
      const entities: string[] = [];
      for (const p of version.participants) if (!entities.includes(p.entityId)) entities.push(p.entityId);
      for (const entity of entities) this.byEntityRefs.add(entity, index);
    }
    this.addEvidence(index, 'fact', version.includesFacts);
    this.addEvidence(index, 'event', version.episodeEvents);
    if (version.docId !== undefined) this.docTurns.add(version.docId, index);
  }

  /**
   * Adds the version's terms to the postings, counted there (a term seen before in this text
   * has this version last). A text the same as the last one added is not analysed again: an
   * item's versions come one after another, mostly with the same text.
   */
  private addText(index: number, text: string): void {
    const last = this.lastAnalysis;
    if (last !== null && text === this.lastText) {
      for (let t = 0; t < last.postings.length; t++) {
        last.postings[t]!.versions.push(index);
        last.postings[t]!.frequencies.push(last.frequencies[t]!);
      }
      this.lengths[index] = last.length;
      return;
    }
    const terms = analyze(text);
    const analysis: Analysis = { postings: [], frequencies: [], length: terms.length };
    for (const term of terms) {
      let postings = this.postings.get(term);
      if (postings === undefined) this.postings.set(term, (postings = { versions: [], frequencies: [] }));
      const n = postings.versions.length;
      if (n > 0 && postings.versions[n - 1] === index) postings.frequencies[n - 1]! += 1;
      else {
        postings.versions.push(index);
        postings.frequencies.push(1);
        analysis.postings.push(postings);
      }
    }
    for (const postings of analysis.postings) analysis.frequencies.push(postings.frequencies[postings.frequencies.length - 1]!);
    this.lengths[index] = terms.length;
    this.lastText = text;
    this.lastAnalysis = analysis;
  }

  /** Each distinct id a version cites as evidence points back at it. */
  private addEvidence(index: number, kind: ItemKind, ids: readonly string[] | undefined): void {
    if (ids === undefined || ids.length === 0) return;
    for (const id of ids.length === 1 ? ids : new Set(ids)) this.evidenceRefs.add(itemKey({ kind, id }), index);
  }

  /** Counts a record time of a row new to the corpus (each row's opening, closing, recording once). */
  private see(ms: EpochMs): void {
    if (ms > this.latest) {
      this.latest = ms;
      this.seenAtLatest = 1;
    } else if (ms === this.latest) this.seenAtLatest += 1;
    else return;
    this.mark = null;
  }

  private grow(size: number): void {
    if (size <= this.recFrom.length) return;
    const capacity = Math.max(size, this.recFrom.length * 2);
    const grown = <T extends Float64Array | Int32Array | Uint8Array>(array: T, make: (n: number) => T): T => {
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
    this.erased = grown(this.erased, (n) => new Uint8Array(n));
  }
}
