import type { SearchCut, SearchableKind } from './documents';
import { SEARCHABLE_KINDS } from './documents';

/**
 * The cut as filter clauses INSIDE the query (never a post-filter), so BM25 and
 * k-NN only ever rank items the cut shows. `date_range` bounds are stored as
 * `gte`/`lt`, so `contains` of the instant is exactly the half-open membership.
 */
export function cutFilter(memoryId: string, cut: SearchCut, kinds: readonly SearchableKind[] = SEARCHABLE_KINDS): Record<string, unknown>[] {
  const filters: Record<string, unknown>[] = [
    { term: { memoryId } },
    { terms: { kind: [...kinds] } },
    { range: { recorded: { gte: cut.recordedAt, lte: cut.recordedAt, relation: 'contains' } } },
  ];
  if (cut.validAt !== '*') {
    filters.push({
      bool: {
        should: [
          { range: { valid: { gte: cut.validAt, lte: cut.validAt, relation: 'contains' } } },
          { bool: { must_not: { exists: { field: 'valid' } } } },
        ],
        minimum_should_match: 1,
      },
    });
  }
  return filters;
}
