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
