import * as chrono from 'chrono-node';
import type { Candidate } from './items';

/** Half-open [from, to) in epoch ms; infinite ends for "before"/"after". */
export interface TimeInterval {
  from: number;
  to: number;
}

/** What the query's time expression asks for: an interval, or a relation to an event named in words. */
export type TemporalIntent =
  { kind: 'interval'; interval: TimeInterval; text: string } | { kind: 'relative'; relation: 'before' | 'after'; anchor: string };

const DAY = 86_400_000;

/**
 * Characters of a query read for its time expression: a question is far shorter, and chrono's
 * patterns cost time in proportion to the characters read, on the search path (a query may be 64 KiB).
 */
export const MAX_TEMPORAL_QUERY = 2_000;

/**
 * Parses the first time expression of `query` relative to `reference` (the cut's
 * reference time; the domain has no clock) with chrono-node, widened to the
 * granularity the words state: a day, a weekend, a week, a month, a year. A month
 * or day without a year that would fall after the reference is taken in the year
 * before (memory questions look back). "before X"/"after X" turn a date into an open
 * interval; with X not a date, the anchor is left for the caller to resolve.
 */
export function parseTemporalIntent(fullQuery: string, reference: Date): TemporalIntent | null {
  const query = fullQuery.slice(0, MAX_TEMPORAL_QUERY);
  const result = chrono.en.parse(query, { instant: reference, timezone: 'UTC' })[0];
  if (result === undefined) return yearOrRelative(query);
  const interval = resultInterval(result, reference);
  const before = query.slice(0, result.index);
  if (/\b(before|until|prior to|by)\s*$/i.test(before))
    return { kind: 'interval', interval: { from: Number.NEGATIVE_INFINITY, to: interval.from }, text: result.text };
  if (/\b(after|since)\s*$/i.test(before))
    return { kind: 'interval', interval: { from: interval.to, to: Number.POSITIVE_INFINITY }, text: result.text };
  return { kind: 'interval', interval, text: result.text };
}

function resultInterval(result: chrono.ParsedResult, reference: Date): TimeInterval {
  const start = result.start;
  let date = startOfDayUtc(start.date());
  const yearStated = start.isCertain('year');
  if (!yearStated && date.getTime() > reference.getTime())
    date = new Date(Date.UTC(date.getUTCFullYear() - 1, date.getUTCMonth(), date.getUTCDate()));
  const from = date.getTime();
  const end = result.end ? startOfDayUtc(result.end.date()).getTime() + DAY : undefined;
  const text = result.text.toLowerCase();
  if (/weekend/.test(text)) {
    const saturday = from - ((date.getUTCDay() + 1) % 7) * DAY; // Sat -> 0 back, Sun -> 1 back
    return { from: saturday, to: saturday + 2 * DAY };
  }
  if (/\bweeks?\b/.test(text)) return { from: from - 3 * DAY, to: (end ?? from + DAY) + 3 * DAY };
  if (start.isCertain('day') || start.isCertain('weekday')) return { from, to: end ?? from + DAY };
  if (start.isCertain('month')) {
    const monthStart = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1);
    return { from: monthStart, to: end ?? Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1) };
  }
  if (yearStated) return { from: Date.UTC(date.getUTCFullYear(), 0, 1), to: end ?? Date.UTC(date.getUTCFullYear() + 1, 0, 1) };
  return { from, to: end ?? from + DAY };
}

/** A bare year ("in 2022", which chrono leaves alone), else "before/after <words>". */
function yearOrRelative(query: string): TemporalIntent | null {
  const year = /\b(?:in|during|of)\s+((?:19|20)\d\d)\b/i.exec(query);
  if (year) {
    const y = Number(year[1]);
    return { kind: 'interval', interval: { from: Date.UTC(y, 0, 1), to: Date.UTC(y + 1, 0, 1) }, text: year[1]! };
  }
  return relativeAnchor(query);
}

const RELATION = /\b(before|after)\s+/gi;
const LINE_BREAK = /[\n\r\u2028\u2029]/g;

/**
 * "before|after <anchor>": the first such whose anchor runs to the end of the query without a
 * line break, trailing ?.! dropped. Scanned, not one regular expression: `(before|after)\s+(.+?)[?.!]*$`
 * backtracks cubically over runs of spaces and ?.!, which a long query can hold.
 */
export function relativeAnchor(query: string): TemporalIntent | null {
  let lastBreak = -1;
  for (const match of query.matchAll(LINE_BREAK)) lastBreak = match.index;
  for (const match of query.matchAll(RELATION)) {
    const start = match.index + match[0].length;
    if (start <= lastBreak || start === query.length) continue;
    let end = query.length;
    while (end > start + 1 && '?.!'.includes(query[end - 1]!)) end -= 1;
    const anchor = query.slice(start, end);
    return /[\p{L}\p{N}]/u.test(anchor) ? { kind: 'relative', relation: match[1]!.toLowerCase() as 'before' | 'after', anchor } : null;
  }
  return null;
}

function startOfDayUtc(date: Date): Date {
  return new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate()));
}

/** When an item is about: a mention's occurredAt (that day), a fact's validity, an event's time span. Null when untimed. */
export function itemInterval(item: Pick<Candidate, 'kind' | 'occurredAt' | 'validFrom' | 'validTo'>): TimeInterval | null {
  if (item.kind === 'mention') {
    if (item.occurredAt === undefined) return null;
    const at = Date.parse(item.occurredAt);
    return { from: at, to: at + 1 };
  }
  if (item.validFrom === undefined) return null;
  return {
    from: Date.parse(item.validFrom),
    to: item.validTo === undefined || item.validTo === null ? Number.POSITIVE_INFINITY : Date.parse(item.validTo),
  };
}

export function overlaps(a: TimeInterval, b: TimeInterval): boolean {
  return a.from < b.to && b.from < a.to;
}
