import type { Instant } from '@memotrace/domain';

/**
 * Record-time sets as sorted, disjoint, half-open intervals `[from, to)` (`to = null`:
 * open). An item's set is the record times at which the cut shows it; stored as a
 * multi-valued `date_range`, so "visible at r" is one `contains` filter in the query.
 * Instants are the domain's UTC millisecond strings, so they compare as strings.
 */
export interface Interval {
  from: Instant;
  to: Instant | null;
}

export type IntervalSet = readonly Interval[];

const before = (a: Instant | null, b: Instant | null): boolean => a !== null && (b === null || a < b);

/** Sorted, without empty intervals, touching or overlapping ones joined. */
export function normalize(intervals: Iterable<Interval>): Interval[] {
  const sorted = [...intervals].filter((i) => before(i.from, i.to) || i.to === null).sort((a, b) => (a.from < b.from ? -1 : a.from > b.from ? 1 : 0));
  const out: Interval[] = [];
  for (const next of sorted) {
    const last = out[out.length - 1];
    if (last && !before(last.to, next.from)) {
      if (before(last.to, next.to) || next.to === null) last.to = next.to;
    } else out.push({ ...next });
  }
  return out;
}

export function intersect(a: IntervalSet, b: IntervalSet): Interval[] {
  const out: Interval[] = [];
  for (const x of a) {
    for (const y of b) {
      const from = x.from > y.from ? x.from : y.from;
      const to = x.to === null ? y.to : y.to === null ? x.to : x.to < y.to ? x.to : y.to;
      if (to === null || from < to) out.push({ from, to });
    }
  }
  return normalize(out);
}

export function union(...sets: IntervalSet[]): Interval[] {
  return normalize(sets.flat());
}

export function contains(set: IntervalSet, at: Instant): boolean {
  return set.some((i) => i.from <= at && (i.to === null || at < i.to));
}

export const ALWAYS: IntervalSet = [{ from: '0000-01-01T00:00:00.000Z', to: null }];
