import { type CutKind, type Translation, type Uniform, kindsByDependency, ruleOf } from '@memotrace/domain';
import type { IndexedKind, SearchDoc } from './documents';
import { type Interval, type IntervalSet, intersect, normalize, union } from './intervals';

/**
 * OpenSearch's translation of the cut rules (libs/domain/src/visibility.ts). A document
 * carries the set of record times at which the cut shows it (`recorded`, a multi-valued
 * `date_range`), computed here from its kind's rule when the projection settles a batch, and
 * its validity (`valid`), which the query's filter tests (cut-filter.ts): so "in the cut" is
 * `recorded contains r AND (valid contains validAt, for kinds whose rule has a validity)`.
 */
type DocParts = Uniform<{ recordedFrom: 'recordedFrom'; recordedTo: 'recordedTo'; validity: 'valid'; members: 'includesFacts' | 'events' }>;

/** Where documents keep what the rules read. Merges are not indexed: the embedded cut resolves entities (null). */
export const DOC_FIELDS: { readonly [K in CutKind]: Translation<K, DocParts[K]> | null } = {
  fact: { recordedFrom: 'recordedFrom', recordedTo: 'recordedTo', validity: 'valid' },
  event: { recordedFrom: 'recordedFrom', recordedTo: 'recordedTo', validity: 'valid', members: 'includesFacts' },
  episode: { recordedFrom: 'recordedFrom', recordedTo: 'recordedTo', validity: 'valid', members: 'events' },
  mention: { recordedFrom: 'recordedFrom' },
  entity: { recordedFrom: 'recordedFrom' },
  merge: null,
};

/** A document kind's fields, read loosely (the parts its rule does not read are absent). */
interface LooseFields {
  recordedFrom: 'recordedFrom';
  recordedTo?: 'recordedTo';
  validity?: 'valid';
  members?: 'includesFacts' | 'events';
}

export function docFields(kind: IndexedKind): LooseFields {
  const fields = DOC_FIELDS[kind];
  if (fields === null) throw new Error(`documents of kind ${kind} are not indexed`);
  return fields as LooseFields;
}

/** The indexed kinds in the order a batch settles them: the kinds whose members another kind requires first. */
export const SETTLE_ORDER: readonly IndexedKind[] = kindsByDependency().filter((kind): kind is IndexedKind => DOC_FIELDS[kind] !== null);

/**
 * The record times at which the cut shows `doc` (its `recorded` set), by its kind's rule: its
 * own record interval (`interval`: `[recordedFrom, recordedTo)`; `since`: from recordedFrom on),
 * and, for a rule that requires members, cut down to the times at which every member counts
 * (`every`: the intersection over the members) or some member does (`some`: the union over
 * them). `memberTimes(kind, id)`: the record times at which member `id` counts, i.e. the union
 * of the `recorded` sets of its documents, already settled (SETTLE_ORDER).
 */
export function visibleIntervals(
  kind: IndexedKind,
  doc: Pick<SearchDoc, 'recordedFrom' | 'recordedTo' | 'includesFacts' | 'events'>,
  memberTimes: (kind: IndexedKind, id: string) => IntervalSet,
): Interval[] {
  const rule = ruleOf(kind);
  const fields = docFields(kind);
  const own = normalize([{ from: doc[fields.recordedFrom], to: rule.record === 'interval' ? doc[fields.recordedTo!] : null }]);
  const requires = rule.requires;
  if (requires === null) return own;
  const memberKind = requires.kind;
  if (DOC_FIELDS[memberKind] === null) throw new Error(`members of kind ${memberKind} are not indexed`);
  const members = doc[fields.members!] ?? [];
  const times = (id: string) => memberTimes(memberKind as IndexedKind, id);
  return requires.quantifier === 'every'
    ? members.reduce<Interval[]>((set, id) => intersect(set, times(id)), own)
    : intersect(own, union(...members.map(times)));
}
