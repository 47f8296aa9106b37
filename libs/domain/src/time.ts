/**
 * Instants are canonical ISO-8601 UTC strings with milliseconds
 * (`2024-05-01T09:30:00.000Z`). The format is fixed-width (years 0000-9999), so
 * string order is time order: the domain compares instants as strings and never
 * reads a clock. `null` as an interval end means open (+infinity).
 */
export type Instant = string;

/** `[from, to)`, `to = null` meaning open. */
export interface Interval {
  from: Instant;
  to: Instant | null;
}

const CANONICAL = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

export function isCanonicalInstant(value: string): boolean {
  return CANONICAL.test(value) && !Number.isNaN(Date.parse(value));
}

/** Canonical form of an epoch-millisecond time. */
export function instantFromMillis(ms: number): Instant {
  return new Date(ms).toISOString();
}

export function maxInstant(a: Instant, b: Instant | null): Instant {
  return b !== null && b > a ? b : a;
}

/** `t` lies in `[from, to)`; `to = null` is +infinity. */
export function contains(from: Instant, to: Instant | null, t: Instant): boolean {
  return from <= t && (to === null || t < to);
}

/** `from < to`, with `to = null` as +infinity. */
export function isNonEmpty(from: Instant, to: Instant | null): boolean {
  return to === null || from < to;
}
