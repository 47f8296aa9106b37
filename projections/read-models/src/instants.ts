import type { Instant } from '@memotrace/domain';

/**
 * Instants cross into PostgreSQL as text and come back as epoch milliseconds, so
 * answers are canonical without depending on the session's TimeZone/DateStyle.
 */

/**
 * PostgreSQL has no year 0: ISO year 0000 (which the domain accepts) is 1 BC there.
 * The 'Z' suffix makes the parse independent of the session time zone.
 */
export function pgInstant(instant: Instant): string {
  return instant.startsWith('0000-') ? `0001${instant.slice(4)} BC` : instant;
}

export function pgInstantOrNull(instant: Instant | null): string | null {
  return instant === null ? null : pgInstant(instant);
}

/** SQL for the epoch milliseconds of a timestamptz (exact: extract() is numeric since PG 14). */
export function epochMs(column: string): string {
  return `(extract(epoch from ${column}) * 1000)::bigint`;
}

/** pg returns bigint as a string unless the pool parses int8 (see @memotrace/postgres). */
export function instantOfEpochMs(value: string | number): Instant {
  return new Date(Number(value)).toISOString();
}

export function instantOrNullOfEpochMs(value: string | number | null): Instant | null {
  return value === null ? null : instantOfEpochMs(value);
}
