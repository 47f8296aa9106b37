import type { Claim, ClaimGround } from './check';
import type { Instant } from './time';
import type {
  ChangeCount,
  ChangeView,
  Cut,
  EntityFilter,
  MentionFilter,
  EntityView,
  EpisodeView,
  EventFilter,
  EventView,
  FactFilter,
  FactView,
  MentionView,
  Page,
  TopicView,
  ValidAt,
} from './views';

/**
 * Time-cut reads of one memory. Two implementations must answer identically:
 * the read models (projection) and exact replay of the log.
 */
export interface MemoryQueries {
  /** The facts in the cut that the filter selects, sorted by factId (a page of them when the filter says). */
  facts(memoryId: string, cut: Cut, filter: FactFilter): Promise<FactView[]>;
  /** Every version, oldest first (as believed at `recordedAt` when given); null for an unknown fact. */
  history(memoryId: string, factId: string, recordedAt?: Instant): Promise<FactView[] | null>;
  /** Null when the entity is unknown or not yet recorded at `recordedAt`. */
  entity(memoryId: string, entityId: string, recordedAt: Instant): Promise<EntityView | null>;
  /** The canonical entities visible at `recordedAt` that the filter selects, sorted by entityId. */
  entities(memoryId: string, recordedAt: Instant, filter: EntityFilter): Promise<EntityView[]>;
  /** The events in the cut that the filter selects, sorted by eventId. */
  events(memoryId: string, cut: Cut, filter?: EventFilter): Promise<EventView[]>;
  /** The episodes in the cut, sorted by episodeId (a page of them when asked). */
  episodes(memoryId: string, cut: Cut, page?: Page): Promise<EpisodeView[]>;
  /** The topics in the cut (SPEC 5.4, `topicsAt`), sorted by topicId (a page of them when asked). */
  topics(memoryId: string, cut: Cut, page?: Page): Promise<TopicView[]>;
  /** The mentions visible at `recordedAt` (only those `ids` names, when given), sorted by mentionId. */
  mentions(memoryId: string, recordedAt: Instant, filter?: MentionFilter): Promise<MentionView[]>;
  /** The mentions of document `docId` visible at `recordedAt`, in document order (`compareDocumentOrder`). */
  documentMentions(memoryId: string, docId: string, recordedAt: Instant): Promise<MentionView[]>;
  /** Null when the mention is unknown or not yet recorded at `recordedAt`. */
  mention(memoryId: string, mentionId: string, recordedAt: Instant): Promise<MentionView | null>;
  /** Versions opened or closed with record time in `[from, to)`. */
  changes(memoryId: string, from: Instant, to: Instant): Promise<ChangeView[]>;
  /** The first `max` record instants in `[from, to)` at which versions opened or closed, ascending, with how many (`changeCountsOf`). */
  changeCounts(memoryId: string, from: Instant, to: Instant, max: number): Promise<ChangeCount[]>;
  /** What each claim is checked against at `recordedAt` (SPEC 5.3, `checkClaim`), in the claims' order. */
  claimGrounds(memoryId: string, recordedAt: Instant, claims: readonly Claim[]): Promise<ClaimGround[]>;
}

/** An answer of the read models and the checkpoint of the snapshot it was read in: it holds every log record up to `checkpoint`. */
export interface Checkpointed<T> {
  answer: T;
  /** A log position (the read models' checkpoint), not a memory's position. */
  checkpoint: number;
}

/**
 * The read models' MemoryQueries, with reads that name the checkpoint of their snapshot: a caller that
 * needs the read models at some log position can look it up while the read runs, and keep the answer
 * when the checkpoint has reached it.
 */
export interface ProjectedMemoryQueries extends MemoryQueries {
  /** `facts`, and the checkpoint of the snapshot its rows were read in. */
  checkpointedFacts(memoryId: string, cut: Cut, filter: FactFilter): Promise<Checkpointed<FactView[]>>;
}

export type { ValidAt };
