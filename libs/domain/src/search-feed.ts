import type { EdgeTarget, Participant } from './commands';
import type { MergeRecord } from './state';
import type { Instant } from './time';
import type { MentionView } from './views';

/**
 * What search indexes of one memory, as stored: every version of every item with
 * its record interval (not cut), entity names, and merges. A search corpus keeps
 * these in memory and cuts them per query; it asks only for what changed since
 * the last record time it saw, since record time is monotone per memory.
 */
export interface FactVersionRow {
  factId: string;
  versionNo: number;
  /** As stored on the fact (not resolved through merges). */
  src: string;
  rel: string;
  dst: EdgeTarget;
  validFrom: Instant;
  validTo: Instant | null;
  recordedFrom: Instant;
  recordedTo: Instant | null;
  evidence: string[];
}

export interface EventVersionRow {
  eventId: string;
  versionNo: number;
  summary: string;
  participants: Participant[];
  includesFacts: string[];
  timeSpan: { from: Instant; to: Instant | null };
  recordedFrom: Instant;
  recordedTo: Instant | null;
}

export interface EpisodeVersionRow {
  episodeId: string;
  versionNo: number;
  title: string;
  window: { from: Instant; to: Instant | null };
  events: string[];
  recordedFrom: Instant;
  recordedTo: Instant | null;
}

export interface EntityNameRow {
  entityId: string;
  name: string;
  recordedFrom: Instant;
}

export interface SearchDelta {
  facts: FactVersionRow[];
  events: EventVersionRow[];
  episodes: EpisodeVersionRow[];
  mentions: MentionView[];
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
