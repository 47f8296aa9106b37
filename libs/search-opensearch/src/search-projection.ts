import { type Change, type ChangeType, type ContentErased, type Instant, factText, mentionText, ruleOf } from '@memotrace/domain';
import type { ProjectedRecord, Projection } from '@memotrace/projection';
import { DEFAULT_ITEM_INDEX, type SearchDoc, VECTOR_DIMENSION } from './documents';
import { type Interval, intersect, union } from './intervals';
import type { OpenSearchItemIndex } from './opensearch-item-index';
import { SETTLE_ORDER, docFields, visibleIntervals } from './visible-intervals';

/** Embeds texts in one batch (the search projector embeds; the command path never does). */
export interface Embedder {
  embed(texts: readonly string[]): Promise<number[][]>;
  /** Drops whatever it keeps of these texts: their content was erased (SPEC §5.2). */
  forget?(texts: readonly string[]): void;
}

export const OPENSEARCH_PROJECTION = 'search-opensearch';

/**
 * Feeds the OpenSearch index from the log, `{name, version, canHandle, handle}` like
 * the read-models projection, so the projector checkpoints it in PostgreSQL
 * (`rm_checkpoints`) and it is rebuildable. OpenSearch is not in that transaction, so
 * `handle` is idempotent instead: every document is keyed by the log position that
 * created it and a fact, event or episode skips events at or below the positions it
 * already holds; re-running a batch (a crash before the checkpoint commit, a rebuild
 * from 0) rewrites the same documents.
 *
 * `prepare` embeds the batch's new texts before the projector's transaction and `handle`
 * takes those vectors: a transaction holding its checkpoint row lock holds back the safe
 * head of every reader of the log, so embedding inside it stalled the read models. `handle`
 * folds the batch again from the index (another projector may have written in between).
 *
 * Erasure (SPEC §5.2): an erased mention's or entity's document is deleted; an erased fact's or
 * event's versions keep only their structure (ids, times, members: the rules of the events and
 * episodes including them read their times) with no text, vector or content, and are never hits.
 * A record whose content reads null (read after its key was destroyed) makes no mention or entity
 * document, and such fact or event versions are kept the same way. The embedder forgets the texts.
 */
/** Needs none of the runner's transaction: OpenSearch is outside it (see below). */
export interface OpenSearchProjection extends Projection {
  handle(records: readonly ProjectedRecord[], tx?: unknown): Promise<void>;
}

export function openSearchProjection(index: OpenSearchItemIndex, options: { embedder?: Embedder; dimension?: number } = {}): OpenSearchProjection {
  const dimension = options.dimension ?? VECTOR_DIMENSION;
  let prepared = new Map<string, number[]>();
  const project = async (
    records: readonly ProjectedRecord[],
    embed: (texts: readonly string[]) => Promise<(number[] | undefined)[]>,
    write: boolean,
  ) => {
    for (const [memoryId, memoryRecords] of byMemory(records)) {
      const batch = new MemoryBatch(index, memoryId);
      await batch.load(memoryRecords);
      for (const { recordedAt, position, changes } of memoryRecords) for (const change of changes) batch.apply(change, recordedAt, position);
      const changed = await batch.settle(options.embedder ? embed : undefined, dimension);
      if (!write) continue;
      await index.upsert(changed);
      await index.remove(memoryId, batch.removed());
      if (batch.erasedTexts.length > 0) options.embedder?.forget?.(batch.erasedTexts);
    }
  };
  return {
    name: openSearchProjectionName(index.index),
    version: 1,
    handles: HANDLED,
    async prepare(records) {
      if (!options.embedder) return;
      const vectors = new Map<string, number[]>();
      await project(
        records,
        async (texts) => {
          const embedded = await options.embedder!.embed(texts);
          texts.forEach((text, i) => vectors.set(text, embedded[i]!));
          return embedded;
        },
        false,
      );
      prepared = vectors;
    },
    async handle(records) {
      const ready = prepared;
      prepared = new Map();
      // Only texts `prepare` did not see (none, unless another projector changed the index) are embedded here.
      await project(
        records,
        async (texts) => {
          const missing = [...new Set(texts.filter((t) => !ready.has(t)))];
          if (missing.length > 0) (await options.embedder!.embed(missing)).forEach((vector, i) => ready.set(missing[i]!, vector));
          return texts.map((t) => ready.get(t));
        },
        true,
      );
    },
  };
}

function byMemory(records: readonly ProjectedRecord[]): Map<string, ProjectedRecord[]> {
  const groups = new Map<string, ProjectedRecord[]>();
  for (const record of records) {
    const group = groups.get(record.memoryId);
    if (group) group.push(record);
    else groups.set(record.memoryId, [record]);
  }
  return groups;
}

/** Names render facts; versions and mentions are the searchable items; erasures take content away. */
const HANDLED: readonly ChangeType[] = ['entity', 'mention', 'opened', 'closed', 'corrected', 'erased'];

/** Lucene's cosine rejects zero vectors and a wrong dimension fails the whole bulk: such a doc is indexed without one. */
const usable = (vector: number[] | undefined, dimension: number): number[] | null =>
  vector && vector.length === dimension && vector.some((v) => v !== 0) ? vector : null;

/** The projection's checkpoint name for an index: each index (vector space) is projected on its own. */
export function openSearchProjectionName(index: string): string {
  return index === DEFAULT_ITEM_INDEX ? OPENSEARCH_PROJECTION : `${OPENSEARCH_PROJECTION}:${index}`;
}
const latestPosition = (docs: readonly SearchDoc[]): number => Math.max(0, ...docs.flatMap((d) => [d.position, d.closedPosition ?? 0]));

/** One memory's slice of a batch: loads the documents it touches, folds the events into them, writes what changed. */
class MemoryBatch {
  private readonly docs = new Map<string, SearchDoc>();
  private readonly dirty = new Set<string>();
  private readonly fresh = new Set<string>();
  /** Documents to delete (erased mentions and entities). */
  private readonly deleted = new Set<string>();
  /** The texts erasures of the batch took away. */
  readonly erasedTexts: string[] = [];

  constructor(
    private readonly index: OpenSearchItemIndex,
    private readonly memoryId: string,
  ) {}

  async load(records: readonly ProjectedRecord[]): Promise<void> {
    const ids = { fact: new Set<string>(), event: new Set<string>(), episode: new Set<string>() };
    const factIds = ids.fact;
    const eventIds = ids.event;
    const episodeIds = ids.episode;
    const keys = new Set<string>();
    for (const { changes } of records) {
      for (const change of changes) {
        switch (change.change) {
          case 'opened':
            // Topics are no OpenSearch documents (yet): their versions touch none.
            if (change.kind === 'topic') break;
            ids[change.kind].add(change.id);
            if (change.kind === 'fact') {
              keys.add(`entity:${change.content.src}`);
              if (typeof change.content.dst === 'string') keys.add(`entity:${change.content.dst}`);
            } else if (change.kind === 'event') change.content.includesFacts.forEach((id) => factIds.add(id));
            else change.content.events.forEach((id) => eventIds.add(id));
            break;
          case 'closed':
          case 'corrected':
            if (change.kind !== 'topic') ids[change.kind].add(change.id);
            break;
          case 'mention':
            keys.add(`mention:${change.mentionId}`);
            break;
          case 'entity':
            keys.add(`entity:${change.entityId}`);
            break;
          case 'erased':
            change.facts.forEach((id) => factIds.add(id));
            change.events.forEach((id) => eventIds.add(id));
            change.mentions.forEach((id) => keys.add(`mention:${id}`));
            change.entities.forEach((id) => keys.add(`entity:${id}`));
            break;
          case 'labels':
          case 'merge':
          case 'relation':
          case 'gate':
          case 'tiers':
          case 'link':
            break;
          default:
            change satisfies never;
        }
      }
    }
    const find = this.index.find.bind(this.index, this.memoryId);
    this.keep(await this.index.get(this.memoryId, [...keys]));
    this.keep(await find({ kind: 'fact', field: 'itemId', values: [...factIds] }));
    // Events whose evidence changes, and episodes whose events do: their visibility is recomputed.
    const eventDocs = [
      ...(await find({ kind: 'event', field: 'itemId', values: [...eventIds] })),
      ...(await find({ kind: 'event', field: 'includesFacts', values: [...factIds] })),
    ];
    this.keep(eventDocs);
    eventDocs.forEach((e) => eventIds.add(e.itemId));
    const episodes = [
      ...(await find({ kind: 'episode', field: 'itemId', values: [...episodeIds] })),
      ...(await find({ kind: 'episode', field: 'events', values: [...eventIds] })),
    ];
    this.keep(episodes);
    // What those need to decide visibility (every version of their members) is fetched by `settle`.
  }

  apply(change: Change, at: Instant, position: number): void {
    switch (change.change) {
      case 'entity':
        if (this.docs.has(`entity:${change.entityId}`) || change.name === null) return;
        this.put({
          ...this.base('entity', change.entityId, `entity:${change.entityId}`, at, position),
          text: change.name,
          payload: { name: change.name },
        });
        return;
      case 'mention': {
        const { mentionId, docId, text, speaker, occurredAt } = change;
        if (this.docs.has(`mention:${mentionId}`) || text === null) return;
        this.put({
          ...this.base('mention', mentionId, `mention:${mentionId}`, at, position),
          text: mentionText({ speaker, text }),
          occurredAt,
          payload: { docId },
        });
        return;
      }
      case 'opened': {
        if (change.kind === 'topic') return;
        if (this.skip(change.kind, change.id, position)) return;
        this.closeOpen(change.kind, change.id, at, position);
        const base = this.base(change.kind, change.id, `${change.kind}:${change.id}#${position}`, at, position);
        switch (change.kind) {
          case 'fact': {
            const { src, rel, dst, validFrom, validTo, evidence, confidence, source } = change.content;
            const valid = { from: validFrom, to: validTo };
            if (dst === null) this.put({ ...base, valid, evidence, vector: null, erased: true, payload: { src, rel, dst, confidence } });
            else
              this.put({
                ...base,
                text: factText({ src, rel, dst }, (id) => this.nameOf(id)),
                valid,
                evidence,
                payload: { src, rel, dst, confidence, source },
              });
            return;
          }
          case 'event': {
            const { summary, includesFacts, timeSpan, participants } = change.content;
            const valid = { from: timeSpan.from, to: timeSpan.to };
            if (summary === null) this.put({ ...base, valid, includesFacts, vector: null, erased: true, payload: { participants } });
            else this.put({ ...base, text: summary, valid, includesFacts, payload: { participants } });
            return;
          }
          case 'episode': {
            const { title, window, events } = change.content;
            this.put({ ...base, text: title, valid: { from: window.from, to: window.to }, events });
            return;
          }
          default:
            return change satisfies never;
        }
      }
      case 'closed':
        if (change.kind === 'topic') return;
        if (this.skip(change.kind, change.id, position)) return;
        this.closeOpen(change.kind, change.id, at, position);
        return;
      case 'corrected': {
        if (this.skip('fact', change.id, position)) return;
        const { id, validFrom, validTo } = change;
        const previous = this.closeOpen('fact', id, at, position);
        if (!previous) return;
        this.put({
          ...previous,
          itemKey: `fact:${id}#${position}`,
          recorded: [{ from: at, to: null }],
          recordedFrom: at,
          recordedTo: null,
          position,
          closedPosition: null,
          valid: { from: validFrom, to: validTo },
          vector: previous.vector ?? null,
        });
        return;
      }
      case 'erased':
        this.erase(change, position);
        return;
      case 'labels':
      case 'merge':
      case 'relation':
      case 'gate':
      case 'tiers':
      case 'link':
        return;
      default:
        return change satisfies never;
    }
  }

  /**
   * Takes away what the erased items held up to the erasure (a version written after it, by a
   * batch replayed, is new content): a fact's or event's versions keep their structure only, a
   * mention's or entity's document goes.
   */
  private erase(erased: ContentErased, position: number): void {
    const before = (doc: SearchDoc) => doc.position < position;
    for (const [kind, ids] of [
      ['fact', erased.facts],
      ['event', erased.events],
    ] as const) {
      for (const id of ids) {
        for (const doc of this.versions(kind, id)) {
          if (!before(doc) || doc.erased) continue;
          if (doc.text !== '') this.erasedTexts.push(doc.text);
          Object.assign(doc, withoutContent(doc));
          this.dirty.add(doc.itemKey);
        }
      }
    }
    for (const key of [...erased.mentions.map((id) => `mention:${id}`), ...erased.entities.map((id) => `entity:${id}`)]) {
      const doc = this.docs.get(key);
      if (doc === undefined || !before(doc)) continue;
      if (doc.text !== '') this.erasedTexts.push(doc.text);
      this.docs.delete(key);
      this.dirty.delete(key);
      this.fresh.delete(key);
      this.deleted.add(key);
    }
  }

  /** The documents to delete. */
  removed(): string[] {
    return [...this.deleted];
  }

  /**
   * Recomputes every loaded document's record times in the cut from its kind's rule (SPEC 3.2,
   * visible-intervals.ts: an event's cut down to when all its facts are believed, an episode's to
   * when one of its events is visible, ...), the kinds whose members others require first; embeds
   * new texts; returns every changed document.
   */
  async settle(embed: ((texts: readonly string[]) => Promise<(number[] | undefined)[]>) | undefined, dimension: number): Promise<SearchDoc[]> {
    // Every version of every member a loaded document's rule reads (an episode's events, then every
    // event's facts): `load` may hold only some versions of an item, e.g. the versions of an event
    // found because they include a fact the batch touches, and a member's times are the union over
    // all its versions.
    for (const kind of [...SETTLE_ORDER].reverse()) {
      const requires = ruleOf(kind).requires;
      const field = docFields(kind).members;
      if (requires === null || field === undefined) continue;
      const ids = new Set(this.all(kind).flatMap((doc) => doc[field] ?? []));
      if (ids.size === 0) continue;
      this.keep(await this.index.find(this.memoryId, { kind: requires.kind as SearchDoc['kind'], field: 'itemId', values: [...ids] }));
    }
    const memberTimes = (kind: SearchDoc['kind'], itemId: string) => union(...this.versions(kind, itemId).map((doc) => doc.recorded));
    for (const kind of SETTLE_ORDER) for (const doc of this.all(kind)) this.setRecorded(doc, visibleIntervals(kind, doc, memberTimes));

    const changed = [...this.dirty].map((key) => this.docs.get(key)!);
    const toEmbed = changed.filter((d) => this.fresh.has(d.itemKey) && d.kind !== 'entity' && !d.vector && !d.erased);
    if (embed && toEmbed.length > 0) {
      const vectors = await embed(toEmbed.map((d) => d.text));
      toEmbed.forEach((d, i) => (d.vector = usable(vectors[i], dimension)));
    }
    return changed;
  }

  private keep(docs: readonly SearchDoc[]): void {
    for (const doc of docs) if (!this.docs.has(doc.itemKey)) this.docs.set(doc.itemKey, doc);
  }

  private put(doc: SearchDoc): void {
    this.docs.set(doc.itemKey, doc);
    this.dirty.add(doc.itemKey);
    this.fresh.add(doc.itemKey);
    this.deleted.delete(doc.itemKey);
  }

  private base(kind: SearchDoc['kind'], itemId: string, itemKey: string, at: Instant, position: number): SearchDoc {
    return {
      memoryId: this.memoryId,
      itemKey,
      kind,
      itemId,
      text: '',
      recorded: [{ from: at, to: null }],
      valid: null,
      recordedFrom: at,
      recordedTo: null,
      position,
      closedPosition: null,
    };
  }

  private all(kind: SearchDoc['kind']): SearchDoc[] {
    return [...this.docs.values()].filter((d) => d.kind === kind);
  }

  private versions(kind: SearchDoc['kind'], itemId: string): SearchDoc[] {
    return this.all(kind).filter((d) => d.itemId === itemId);
  }

  /** Already applied: the item holds this position or a later one. */
  private skip(kind: SearchDoc['kind'], itemId: string, position: number): boolean {
    return latestPosition(this.versions(kind, itemId)) >= position;
  }

  /** Closes the open version's record interval at `at`; returns it as it was. */
  private closeOpen(kind: SearchDoc['kind'], itemId: string, at: Instant, position: number): SearchDoc | undefined {
    const open = this.versions(kind, itemId).find((d) => d.recordedTo === null);
    if (!open) return undefined;
    const before = { ...open };
    open.recordedTo = at;
    open.closedPosition = position;
    open.recorded = intersect(open.recorded, [{ from: open.recordedFrom, to: at }]);
    this.dirty.add(open.itemKey);
    return before;
  }

  private setRecorded(doc: SearchDoc, recorded: Interval[]): void {
    if (JSON.stringify(recorded) === JSON.stringify(doc.recorded)) return;
    doc.recorded = recorded;
    this.dirty.add(doc.itemKey);
  }

  private nameOf(entityId: string): string {
    const name = this.docs.get(`entity:${entityId}`)?.payload?.['name'];
    return typeof name === 'string' ? name : entityId;
  }
}

/** A fact's or event's version as an erasure leaves it: ids, times and members, no text, vector, literal or source. */
function withoutContent(doc: SearchDoc): SearchDoc {
  const payload = doc.payload ?? {};
  const structure =
    doc.kind === 'fact'
      ? {
          src: payload['src'],
          rel: payload['rel'],
          dst: typeof payload['dst'] === 'string' ? payload['dst'] : null,
          confidence: payload['confidence'],
        }
      : { participants: payload['participants'] };
  return { ...doc, text: '', vector: null, payload: structure, erased: true };
}
