/**
 * The cut a page shows, as its URL carries it (`?validAt=&recordedAt=`): absent means "now" (the
 * API's default, the request time), `validAt=*` means every valid time. Pure: no DOM here, so the
 * Node typecheck and the unit tests see it too.
 */
export interface Cut {
  /** An ISO instant, `*`, or undefined (now). */
  validAt: string | undefined;
  /** An ISO instant, or undefined (now). */
  recordedAt: string | undefined;
}

/** The named cuts of the spec: As-World@t = (t, now), As-Recorded@t = (t, t); anything else is bitemporal. */
export type CutMode = 'as-world' | 'as-recorded' | 'bitemporal';

const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

export function isInstant(value: string): boolean {
  return INSTANT.test(value) && !Number.isNaN(Date.parse(value));
}

export function cutFromSearch(search: string): Cut {
  const params = new URLSearchParams(search);
  const validAt = params.get('validAt') ?? undefined;
  const recordedAt = params.get('recordedAt') ?? undefined;
  return {
    validAt: validAt === '*' || (validAt !== undefined && isInstant(validAt)) ? validAt : undefined,
    recordedAt: recordedAt !== undefined && isInstant(recordedAt) ? recordedAt : undefined,
  };
}

export function modeOf(cut: Cut): CutMode {
  if (cut.recordedAt === undefined) return 'as-world';
  if (cut.validAt !== undefined && cut.validAt !== '*' && Date.parse(cut.validAt) === Date.parse(cut.recordedAt)) return 'as-recorded';
  return 'bitemporal';
}

/** The cut's query parameters (only those set), with `extra` after them: `?validAt=...&recordedAt=...`. */
export function cutQuery(cut: Cut, extra: Record<string, string | undefined> = {}): string {
  const params = new URLSearchParams();
  if (cut.validAt !== undefined) params.set('validAt', cut.validAt);
  if (cut.recordedAt !== undefined) params.set('recordedAt', cut.recordedAt);
  for (const [name, value] of Object.entries(extra)) if (value !== undefined && value !== '') params.set(name, value);
  const text = params.toString().replaceAll('%3A', ':').replaceAll('%2A', '*');
  return text === '' ? '' : `?${text}`;
}

/** The value of a `datetime-local` input showing `iso` in UTC (the console shows every time in UTC). */
export function toInputValue(iso: string | undefined): string {
  if (iso === undefined || iso === '*' || !isInstant(iso)) return '';
  return new Date(iso).toISOString().slice(0, 19);
}

/** The ISO instant of a `datetime-local` value read as UTC, or undefined when it is empty or malformed. */
export function fromInputValue(value: string): string | undefined {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(value)) return undefined;
  const ms = Date.parse(`${value}Z`);
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString();
}

/** `2024-05-08T12:00:00.000Z` -> `2024-05-08 12:00 UTC` (seconds shown when not zero). */
export function formatInstant(iso: string | null | undefined): string {
  if (iso === null || iso === undefined) return '∞';
  if (iso === '*') return 'any time (*)';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const text = d.toISOString();
  const seconds = text.slice(16, 23) === ':00.000' ? '' : text.slice(16, text.endsWith('.000Z') ? 19 : 23);
  return `${text.slice(0, 10)} ${text.slice(11, 16)}${seconds} UTC`;
}

/** A human name for a cut: "As-Recorded@2024-05-08 00:00 UTC", "As-World@now". */
export function describeCut(cut: Cut): string {
  const valid = cut.validAt === undefined ? 'now' : formatInstant(cut.validAt);
  switch (modeOf(cut)) {
    case 'as-world':
      return `As-World@${valid}`;
    case 'as-recorded':
      return `As-Recorded@${valid}`;
    case 'bitemporal':
      return `valid ${valid}, recorded ${formatInstant(cut.recordedAt)}`;
  }
}
