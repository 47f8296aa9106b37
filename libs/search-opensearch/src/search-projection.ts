import { type DomainEventType, type Instant, type MemoryEvent, factText, mentionText } from '@memotrace/domain';
import type { LoggedMemoryEvent } from '@memotrace/memory-log';
import { DEFAULT_ITEM_INDEX, type SearchDoc, VECTOR_DIMENSION } from './documents';
import { type Interval, type IntervalSet, intersect, normalize, union } from './intervals';
import type { OpenSearchItemIndex } from './opensearch-item-index';

/** Embeds texts in one batch (the search projector embeds; the command path never does). */
export interface Embedder {
  embed(texts: readonly string[]): Promise<number[][]>;
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
 */
export function openSearchProjection(index: OpenSearchItemIndex, options: { embedder?: Embedder; dimension?: number } = {}) {
  const dimension = options.dimension ?? VECTOR_DIMENSION;
  let prepared = new Map<string, number[]>();
  const project = async (events: readonly LoggedMemoryEvent[], embed: (texts: readonly string[]) => Promise<(number[] | undefined)[]>, write: boolean) => {
    for (const [memoryId, memoryEvents] of byMemory(events)) {
      const batch = new MemoryBatch(index, memoryId);
      await batch.load(memoryEvents);
      for (const e of memoryEvents) batch.apply(e.event, e.position);
      const changed = await batch.settle(options.embedder ? embed : undefined, dimension);
      if (write) await index.upsert(changed);
    }
  };
  return {
    name: openSearchProjectionName(index.index),
    version: 1,
    canHandle: HANDLED,
    async prepare(events: readonly LoggedMemoryEvent[], _db?: unknown): Promise<void> {
      if (!options.embedder) return;
      const vectors = new Map<string, number[]>();
      await project(events, async (texts) => {
        const embedded = await options.embedder!.embed(texts);
        texts.forEach((text, i) => vectors.set(text, embedded[i]!));
        return embedded;
      }, false);
      prepared = vectors;
    },
    async handle(events: readonly LoggedMemoryEvent[], _tx?: unknown): Promise<void> {
      const ready = prepared;
      prepared = new Map();
      // Only texts `prepare` did not see (none, unless another projector changed the index) are embedded here.
      await project(events, async (texts) => {
        const missing = [...new Set(texts.filter((t) => !ready.has(t)))];
        if (missing.length > 0) (await options.embedder!.embed(missing)).forEach((vector, i) => ready.set(missing[i]!, vector));
        return texts.map((t) => ready.get(t));
      }, true);
    },
  };
}

function byMemory(events: readonly LoggedMemoryEvent[]): Map<string, LoggedMemoryEvent[]> {
  const groups = new Map<string, LoggedMemoryEvent[]>();
  for (const e of events) {
    const group = groups.get(e.memoryId);
    if (group) group.push(e);
    else groups.set(e.memoryId, [e]);
  }
  return groups;
}

const HANDLED: readonly DomainEventType[] = [
  'EntityRegistered',
  'FactAsserted',
  'FactArchived',
  'FactRetroCorrected',
  'FactSuperseded',
  'EventRecorded',
  'EpisodeRecorded',
  'MentionRecorded',
];

/** Lucene's cosine rejects zero vectors and a wrong dimension fails the whole bulk: such a doc is indexed without one. */
const usable = (vector: number[] | undefined, dimension: number): number[] | null =>
  vector && vector.length === dimension && vector.some((v) => v !== 0) ? vector : null;

/** The projection's checkpoint name for an index: each index (vector space) is projected on its own. */
export function openSearchProjectionName(index: string): string {
  return index === DEFAULT_ITEM_INDEX ? OPENSEARCH_PROJECTION : `${OPENSEARCH_PROJECTION}:${index}`;
}
const own = (doc: SearchDoc): Interval[] => normalize([{ from: doc.recordedFrom, to: doc.recordedTo }]);
const latestPosition = (docs: readonly SearchDoc[]): number => Math.max(0, ...docs.flatMap((d) => [d.position, d.closedPosition ?? 0]));

/** One memory's slice of a batch: loads the documents it touches, folds the events into them, writes what changed. */
class MemoryBatch {
  private readonly docs = new Map<string, SearchDoc>();
  private readonly dirty = new Set<string>();
  private readonly fresh = new Set<string>();

  constructor(
    private readonly index: OpenSearchItemIndex,
    private readonly memoryId: string,
  ) {}

  async load(events: readonly LoggedMemoryEvent[]): Promise<void> {
    const factIds = new Set<string>();
    const eventIds = new Set<string>();
    const episodeIds = new Set<string>();
    const keys = new Set<string>();
    for (const { event } of events) {
      switch (event.type) {
        case 'FactAsserted':
          keys.add(`entity:${event.data.src}`);
          if (typeof event.data.dst === 'string') keys.add(`entity:${event.data.dst}`);
          factIds.add(event.data.factId);
          break;
        case 'FactArchived':
        case 'FactRetroCorrected':
        case 'FactSuperseded':
          factIds.add(event.data.factId);
          break;
        case 'EventRecorded':
          eventIds.add(event.data.eventId);
          event.data.includesFacts.forEach((id) => factIds.add(id));
          break;
        case 'EpisodeRecorded':
          episodeIds.add(event.data.episodeId);
          event.data.events.forEach((id) => eventIds.add(id));
          break;
        case 'MentionRecorded':
          keys.add(`mention:${event.data.mentionId}`);
          break;
        case 'EntityRegistered':
          keys.add(`entity:${event.data.entityId}`);
          break;
        default:
          break;
      }
    }
    const find = this.index.find.bind(this.index, this.memoryId);
    this.keep(await this.index.get(this.memoryId, [...keys]));
    this.keep(await find({ kind: 'fact', field: 'itemId', values: [...factIds] }));
    // Events whose evidence changes, and episodes whose events do: their visibility is recomputed.
    const eventDocs = [...(await find({ kind: 'event', field: 'itemId', values: [...eventIds] })), ...(await find({ kind: 'event', field: 'includesFacts', values: [...factIds] }))];
    this.keep(eventDocs);
    eventDocs.forEach((e) => eventIds.add(e.itemId));
    const episodes = [...(await find({ kind: 'episode', field: 'itemId', values: [...episodeIds] })), ...(await find({ kind: 'episode', field: 'events', values: [...eventIds] }))];
    this.keep(episodes);
    // What those need to decide visibility: every event of an episode, every fact of an event.
    const missingEvents = episodes.flatMap((e) => e.events ?? []).filter((id) => !eventIds.has(id));
    this.keep(await find({ kind: 'event', field: 'itemId', values: [...new Set(missingEvents)] }));
    const missingFacts = this.all('event').flatMap((e) => e.includesFacts ?? []).filter((id) => !factIds.has(id));
    this.keep(await find({ kind: 'fact', field: 'itemId', values: [...new Set(missingFacts)] }));
  }

  apply(event: MemoryEvent, position: number): void {
    const at = event.meta.recordedAt;
    switch (event.type) {
      case 'EntityRegistered':
        if (this.docs.has(`entity:${event.data.entityId}`)) return;
        this.put({ ...this.base('entity', event.data.entityId, `entity:${event.data.entityId}`, at, position), text: event.data.name, payload: { name: event.data.name } });
        return;
      case 'MentionRecorded': {
        if (this.docs.has(`mention:${event.data.mentionId}`)) return;
        const { mentionId, docId, text, speaker, occurredAt } = event.data;
        this.put({ ...this.base('mention', mentionId, `mention:${mentionId}`, at, position), text: mentionText({ speaker, text }), occurredAt, payload: { docId } });
        return;
      }
      case 'FactAsserted': {
        if (this.skip('fact', event.data.factId, position)) return;
        const { factId, src, rel, dst, validFrom, validTo, evidence, confidence, source } = event.data;
        this.closeOpen('fact', factId, at, position);
        this.put({
          ...this.base('fact', factId, `fact:${factId}#${position}`, at, position),
          text: factText({ src, rel, dst }, (id) => this.nameOf(id)),
          valid: { from: validFrom, to: validTo },
          evidence,
          payload: { src, rel, dst, confidence, source },
        });
        return;
      }
      case 'FactArchived':
        if (this.skip('fact', event.data.factId, position)) return;
        this.closeOpen('fact', event.data.factId, at, position);
        return;
      case 'FactRetroCorrected':
      case 'FactSuperseded': {
        if (this.skip('fact', event.data.factId, position)) return;
        const { factId, validFrom, validTo } = event.data;
        const previous = this.closeOpen('fact', factId, at, position);
        if (!previous) return;
        this.put({ ...previous, itemKey: `fact:${factId}#${position}`, recorded: [{ from: at, to: null }], recordedFrom: at, recordedTo: null, position, closedPosition: null, valid: { from: validFrom, to: validTo }, vector: previous.vector ?? null });
        return;
      }
      case 'EventRecorded': {
        if (this.skip('event', event.data.eventId, position)) return;
        const { eventId, summary, includesFacts, timeSpan, participants } = event.data;
        this.closeOpen('event', eventId, at, position);
        this.put({ ...this.base('event', eventId, `event:${eventId}#${position}`, at, position), text: summary, valid: { from: timeSpan.from, to: timeSpan.to }, includesFacts, payload: { participants } });
        return;
      }
      case 'EpisodeRecorded': {
        if (this.skip('episode', event.data.episodeId, position)) return;
        const { episodeId, title, window, events } = event.data;
        this.closeOpen('episode', episodeId, at, position);
        this.put({ ...this.base('episode', episodeId, `episode:${episodeId}#${position}`, at, position), text: title, valid: { from: window.from, to: window.to }, events });
        return;
      }
      default:
        return;
    }
  }

  /** Recomputes event and episode visibility (SPEC 3.2), embeds new texts; returns every changed document. */
  async settle(embed: ((texts: readonly string[]) => Promise<(number[] | undefined)[]>) | undefined, dimension: number): Promise<SearchDoc[]> {
    const believed = (factId: string): IntervalSet => union(...this.versions('fact', factId).map(own));
    for (const event of this.all('event')) {
      const recorded = (event.includesFacts ?? []).reduce<IntervalSet>((set, factId) => intersect(set, believed(factId)), own(event));
      this.setRecorded(event, [...recorded]);
    }
    const shown = (eventId: string): IntervalSet => union(...this.versions('event', eventId).map((e) => e.recorded));
    for (const episode of this.all('episode')) this.setRecorded(episode, intersect(own(episode), union(...(episode.events ?? []).map(shown))));

    const changed = [...this.dirty].map((key) => this.docs.get(key)!);
    const toEmbed = changed.filter((d) => this.fresh.has(d.itemKey) && d.kind !== 'entity' && !d.vector);
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
  }

  private base(kind: SearchDoc['kind'], itemId: string, itemKey: string, at: Instant, position: number): SearchDoc {
    return { memoryId: this.memoryId, itemKey, kind, itemId, text: '', recorded: [{ from: at, to: null }], valid: null, recordedFrom: at, recordedTo: null, position, closedPosition: null };
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
