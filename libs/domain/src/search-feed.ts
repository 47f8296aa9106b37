import type { EntityRecord, EpisodeVersion, EventVersion, FactRecord, FactVersion, MergeRecord } from './state';
import type { Instant } from './time';
import type { MentionView } from './views';

/**
 * What search indexes of one memory, as stored: every version of every item with
 * its record interval (not cut), entity names, and merges. A search corpus keeps
 * these in memory and cuts them per query; it asks only for what changed since
 * the last record time it saw, since record time is monotone per memory.
 */
/**
 * An instant as epoch milliseconds. The versions' times come as numbers: the corpus scans them
 * as numbers, and makes an instant string only for a version an answer shows.
 */
export type EpochMs = number;

/** A version's record interval, `to` null while open. */
interface RecordedMs {
  recordedFrom: EpochMs;
  recordedTo: EpochMs | null;
}

/** With the read models' version number of the row (1, 2, ... per item, in record order). */
interface Numbered {
  versionNo: number;
}

/** `src` and `dst` as stored on the fact (not resolved through merges). */
export interface FactVersionRow extends Numbered, RecordedMs, Pick<FactRecord, 'factId' | 'src' | 'rel' | 'dst'>, Pick<FactVersion, 'evidence'> {
  validFrom: EpochMs;
  validTo: EpochMs | null;
  /** Present (true) when the version's content was erased: a fact with an entity dst shows it nowhere else. */
  erased?: true;
}

export interface EventVersionRow extends Numbered, RecordedMs, Pick<EventVersion, 'eventId' | 'summary' | 'participants' | 'includesFacts'> {
  timeSpan: { from: EpochMs; to: EpochMs | null };
}

export interface EpisodeVersionRow extends Numbered, RecordedMs, Pick<EpisodeVersion, 'episodeId' | 'title' | 'events'> {
  window: { from: EpochMs; to: EpochMs | null };
}

export interface MentionItemRow extends Pick<MentionView, 'mentionId' | 'docId' | 'text' | 'speaker'> {
  occurredAt: EpochMs | null;
  recordedFrom: EpochMs;
}

/**
 * Names and merges keep their instants: they are few, and a cut reads them as they are. An
 * entity named again after an erasure shows its name from `namedFrom` (absent: its recording).
 */
export interface EntityNameRow extends Pick<EntityRecord, 'entityId' | 'name' | 'recordedFrom'> {
  namedFrom?: Instant;
}

export interface SearchDelta {
  facts: FactVersionRow[];
  events: EventVersionRow[];
  episodes: EpisodeVersionRow[];
  mentions: MentionItemRow[];
  entities: EntityNameRow[];
  /** In log order; `seq` orders them across deltas. */
  merges: (MergeRecord & { seq: number })[];
}

/**
 * Where a corpus stands: the latest record time it saw, and how many record times of
 * rows (a version's opening and its closing count apart) are at that instant.
 */
export interface Watermark {
  at: Instant;
  seen: number;
}

export interface SearchFeed {
  /** Every row of the memory, from one consistent snapshot, in chunks: entity names and merges first. */
  allItems(memoryId: string): AsyncIterable<SearchDelta>;
  /**
   * Every row of the memory with a record time (opened, closed, recorded, merged)
   * after `since.at`, and those at `since.at` too unless the memory still has exactly
   * `since.seen` record times there (a later batch may share that instant). One
   * consistent snapshot.
   */
  itemsSince(memoryId: string, since: Watermark): Promise<SearchDelta>;
  /** Grows whenever rows of the memory may have changed (and maybe when others did): a cheap "anything new?". */
  changeMark(memoryId: string): Promise<number>;
}
