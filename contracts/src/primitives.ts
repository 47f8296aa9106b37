import { z } from 'zod';

/**
 * Edge primitives (SPEC §1, §2, §4): instants, memory ids, ids and text fields.
 * Every schema here parses untrusted JSON and never throws; failures are zod issues.
 */

export const MAX_ID_CODE_POINTS = 128;
export const MAX_TEXT_BYTES = 64 * 1024;
export const MAX_LIST_ITEMS = 1000;

// ---------------------------------------------------------------- instants

/** Date, time with seconds, 0..3 fraction digits (more are caught below), offset. */
const INSTANT_SHAPE = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(Z|[+-]\d{2}:\d{2})$/;
/** Documented pattern (exactly what is accepted syntactically). */
export const INSTANT_PATTERN = '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,3})?(Z|[+-]\\d{2}:\\d{2})$';
export const CANONICAL_INSTANT_PATTERN = '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z$';

const MIN_MS = -62167219200000; // 0000-01-01T00:00:00.000Z
const MAX_MS = 253402300799999; // 9999-12-31T23:59:59.999Z

function daysInMonth(year: number, month: number): number {
  if (month === 2) {
    const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
    return leap ? 29 : 28;
  }
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

function utcEpochMs(year: number, month: number, day: number, hour: number, minute: number, second: number, ms: number): number {
  if (year >= 100) return Date.UTC(year, month - 1, day, hour, minute, second, ms);
  const date = new Date(0); // Date.UTC shifts years 0..99 to 19xx; setUTCFullYear does not
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, ms);
  return date.getTime();
}

export type InstantResult = { ok: true; value: string } | { ok: false; message: string };

/**
 * Parses an ISO-8601 instant with a UTC offset into canonical UTC with milliseconds
 * (`2024-05-01T11:30:00+02:00` -> `2024-05-01T09:30:00.000Z`).
 */
export function parseInstant(input: string): InstantResult {
  const m = INSTANT_SHAPE.exec(input);
  if (!m) {
    return {
      ok: false,
      message: 'must be an ISO-8601 date-time with seconds and a UTC offset, e.g. 2024-05-01T09:30:00Z',
    };
  }
  const [, ys, mos, ds, hs, mis, ss, frac, offset] = m as unknown as string[];
  if (frac !== undefined && frac.length > 3) {
    return { ok: false, message: 'must have at most millisecond precision (3 fraction digits)' };
  }
  const year = Number(ys);
  const month = Number(mos);
  const day = Number(ds);
  const hour = Number(hs);
  const minute = Number(mis);
  const second = Number(ss);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) {
    return { ok: false, message: 'is not a valid calendar date' };
  }
  if (hour > 23 || minute > 59 || second > 59) {
    return { ok: false, message: 'is not a valid time of day' };
  }
  let offsetMinutes = 0;
  if (offset !== 'Z') {
    const oh = Number(offset!.slice(1, 3));
    const om = Number(offset!.slice(4, 6));
    if (oh > 23 || om > 59) return { ok: false, message: 'has an invalid UTC offset' };
    offsetMinutes = (offset!.startsWith('-') ? -1 : 1) * (oh * 60 + om);
  }
  // Already canonical (UTC, milliseconds): every 4-digit year is in range, nothing to convert.
  if (offset === 'Z' && frac !== undefined && frac.length === 3) return { ok: true, value: input };
  const ms = frac === undefined ? 0 : Number(frac.padEnd(3, '0'));
  const epoch = utcEpochMs(year, month, day, hour, minute, second, ms) - offsetMinutes * 60_000;
  if (epoch < MIN_MS || epoch > MAX_MS) {
    return { ok: false, message: 'must lie between 0000-01-01T00:00:00Z and 9999-12-31T23:59:59.999Z' };
  }
  return { ok: true, value: new Date(epoch).toISOString() };
}

/** Wire instant: accepted with any offset, output canonical UTC with milliseconds. */
export const instant = z
  .string()
  .transform((s, ctx) => {
    const r = parseInstant(s);
    if (r.ok) return r.value;
    ctx.addIssue({ code: 'custom', message: r.message, input: s });
    return z.NEVER;
  })
  .meta({
    description: 'ISO-8601 instant with a UTC offset and at most millisecond precision',
    pattern: INSTANT_PATTERN,
    format: 'date-time',
    examples: ['2024-05-01T09:30:00Z', '2024-05-01T11:30:00.250+02:00'],
  });

/** `"*"` (any validity) or an instant. */
export const instantOrStar = z.union([z.literal('*'), instant], { error: 'must be "*" or an instant' });

/** Response instant: always canonical (`2024-05-01T09:30:00.000Z`). */
export const canonicalInstant = z
  .string()
  .regex(new RegExp(CANONICAL_INSTANT_PATTERN))
  .meta({ description: 'canonical UTC instant with milliseconds', format: 'date-time', examples: ['2024-05-01T09:30:00.000Z'] });

// ---------------------------------------------------------------- strings

const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export function hasLoneSurrogate(s: string): boolean {
  return LONE_SURROGATE.test(s);
}

/** Number of Unicode code points (a surrogate pair counts once). */
export function codePointLength(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    n++;
  }
  return n;
}

/** UTF-8 byte length of a well-formed string. */
export function utf8ByteLength(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

/**
 * Identifier: 1..128 code points, no control characters (U+0000-U+001F, U+007F-U+009F),
 * well-formed Unicode (a lone surrogate could not be stored).
 */
export const id = z
  .string()
  .superRefine((s, ctx) => {
    const len = codePointLength(s);
    if (len < 1) ctx.addIssue({ code: 'custom', message: 'must not be empty' });
    else if (len > MAX_ID_CODE_POINTS) ctx.addIssue({ code: 'custom', message: `must be at most ${MAX_ID_CODE_POINTS} characters` });
    if (CONTROL.test(s)) ctx.addIssue({ code: 'custom', message: 'must not contain control characters' });
    if (hasLoneSurrogate(s)) ctx.addIssue({ code: 'custom', message: 'must be valid Unicode (lone surrogate)' });
  })
  .meta({ minLength: 1, maxLength: MAX_ID_CODE_POINTS, description: '1..128 characters, no control characters' });

function textCheck(minCodePoints: number, nonBlank: boolean) {
  return (s: string, ctx: z.RefinementCtx) => {
    if (hasLoneSurrogate(s)) ctx.addIssue({ code: 'custom', message: 'must be valid Unicode (lone surrogate)' });
    if (s.includes('\u0000')) ctx.addIssue({ code: 'custom', message: 'must not contain NUL characters' });
    if (utf8ByteLength(s) > MAX_TEXT_BYTES) ctx.addIssue({ code: 'custom', message: 'must be at most 64 KiB in UTF-8' });
    if (codePointLength(s) < minCodePoints) ctx.addIssue({ code: 'custom', message: 'must not be empty' });
    else if (nonBlank && s.trim() === '') ctx.addIssue({ code: 'custom', message: 'must not be blank' });
  };
}

const TEXT_DESCRIPTION = 'valid Unicode without NUL, at most 64 KiB in UTF-8';

/** Free text: valid Unicode, no NUL, at most 64 KiB UTF-8; may be empty. */
export const text = z.string().superRefine(textCheck(0, false)).meta({ description: TEXT_DESCRIPTION });

/** Text with at least one character. */
export const nonEmptyText = z
  .string()
  .superRefine(textCheck(1, false))
  .meta({ minLength: 1, description: `non-empty, ${TEXT_DESCRIPTION}` });

/** Text with at least one non-whitespace character (entity names, search queries). */
export const nonBlankText = z
  .string()
  .superRefine(textCheck(1, true))
  .meta({ minLength: 1, description: `non-blank, ${TEXT_DESCRIPTION}` });

/** Array capped at 1000 items. */
export function list<T extends z.ZodType>(item: T) {
  return z.array(item).max(MAX_LIST_ITEMS);
}

export const idList = list(id);

// ---------------------------------------------------------------- memory ids

export const MEMORY_ID_PATTERN = /^[a-z0-9][a-z0-9_-]{0,62}$/;

export const memoryId = z
  .string()
  .regex(MEMORY_ID_PATTERN, { error: 'must match ^[a-z0-9][a-z0-9_-]{0,62}$' })
  .meta({ description: 'memory (tenant) id', examples: ['agent-42'] });
