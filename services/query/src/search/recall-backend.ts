import type { ProjectionProgress } from '../consistency';
import type { CutItems, RecallHit } from './cut-items';

export type { RecallHit };

/**
 * The seam between ranking and where hits come from. The embedded backend scores the
 * cut's items in process; an index backend (OpenSearch) can answer the same request
 * with the cut as a filter inside its query. Hits name items by `itemKey`; each list
 * is best first and holds only items of the cut.
 */
export interface RecallRequest {
  query: string;
  items: CutItems;
  /** The log position the read models have reached for this read: the backend's index is asked for it too. */
  position?: number;
  /** The read asked for `minPosition` (read-your-writes): the backend may wait, bounded, for its index to reach `position`. */
  readYourWrites?: boolean;
}

/** How far a search index has got (a projector of its own), and how long a read-your-writes search waits for it. */
export interface IndexProgress {
  progress: ProjectionProgress;
  waitMs: number;
}

/**
 * Whether the index holds every record up to the request's position: a read-your-writes search
 * waits for it up to `waitMs`, any other search only looks. True without a position or a progress.
 */
export function indexReached(
  index: IndexProgress | undefined,
  { position, readYourWrites }: Pick<RecallRequest, 'position' | 'readYourWrites'>,
): Promise<boolean> {
  return progressReached(index?.progress, position, readYourWrites ? (index?.waitMs ?? 0) : 0);
}

/** Whether a projector holds every record up to `position`, waiting up to `waitMs` (0: only looks). True without a position or a progress. */
export function progressReached(progress: ProjectionProgress | undefined, position: number | undefined, waitMs = 0): Promise<boolean> {
  return progress === undefined || position === undefined ? Promise.resolve(true) : progress.waitFor(position, waitMs);
}

export interface RecallResult {
  bm25: RecallHit[];
  vector: RecallHit[];
  /** The vector model's cosine floor (default 0; see `EmbeddingProvider.cosineFloor`). */
  vectorFloor?: number;
  /** Items of the cut that had no vector yet, so that only BM25 could find them (absent: no vectors are used). */
  unembedded?: number;
}

export interface RecallBackend {
  /** Starts the work that needs only the query (embedding it), so it overlaps the cut's preparation. */
  prepare?(query: string): void;
  recall(request: RecallRequest): Promise<RecallResult>;
}

export function itemKey(item: { kind: string; id: string }): string {
  return `${item.kind}\u0000${item.id}`;
}
