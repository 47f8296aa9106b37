import { type ItemKind, SEARCH_ITEM_KINDS } from '@memotrace/domain';
import type { SearchCut } from './documents';
import { docFields } from './visible-intervals';

/**
 * The cut as filter clauses INSIDE the query (never a post-filter), so BM25 and
 * k-NN only ever rank items the cut shows. `date_range` bounds are stored as
 * `gte`/`lt`, so `contains` of the instant is exactly the half-open membership.
 *
 * The translation of the domain's rules (visible-intervals.ts): a document's `recorded` set
 * holds the record times its kind's rule shows it at (record rule and requirement, settled by
 * the projection), so the record time is one `contains` for every kind; a validAt other than
 * '*' tests the validity field of the kinds whose rule has a validity, and nothing of the others.
 * An erased version (kept for the rules of the items including it) is in no cut as an item.
 */
export function cutFilter(memoryId: string, cut: SearchCut, kinds: readonly ItemKind[] = SEARCH_ITEM_KINDS): Record<string, unknown>[] {
  const filters: Record<string, unknown>[] = [
    { term: { memoryId } },
    { terms: { kind: [...kinds] } },
    { range: { recorded: { gte: cut.recordedAt, lte: cut.recordedAt, relation: 'contains' } } },
    { bool: { must_not: { term: { erased: true } } } },
  ];
  if (cut.validAt !== '*') {
    // Kinds grouped by the field of their validity (null: their rule has none).
    const byValidity = new Map<string | null, ItemKind[]>();
    for (const kind of kinds) {
      const field = docFields(kind).validity ?? null;
      byValidity.set(field, [...(byValidity.get(field) ?? []), kind]);
    }
    const should = [...byValidity].map(([field, ofKinds]) =>
      field === null
        ? { terms: { kind: ofKinds } }
        : { bool: { filter: [{ terms: { kind: ofKinds } }, { range: { [field]: { gte: cut.validAt, lte: cut.validAt, relation: 'contains' } } }] } },
    );
    filters.push({ bool: { should, minimum_should_match: 1 } });
  }
  return filters;
}
