import type { Cut } from '@memotrace/domain';
import type { Candidate } from './items';

/**
 * The seam between ranking and where hits come from. The embedded backend scores the
 * cut's candidates in process; an index backend (OpenSearch) can answer the same
 * request with the cut as a filter inside its query. Hits name items by `itemKey`;
 * each list is best first and holds only items of `candidates` (the cut).
 */
export interface RecallRequest {
  memoryId: string;
  cut: Cut;
  query: string;
  candidates: readonly Candidate[];
}

export interface RecallHit {
  key: string;
  score: number;
}

export interface RecallResult {
  bm25: RecallHit[];
  vector: RecallHit[];
}

export interface RecallBackend {
  recall(request: RecallRequest): Promise<RecallResult>;
}

export function itemKey(item: { kind: string; id: string }): string {
  return `${item.kind}\u0000${item.id}`;
}
