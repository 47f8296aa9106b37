import { z } from 'zod';

/**
 * Edge primitives (SPEC §1, §2, §4): instants, memory ids, ids and text fields.
 * Every schema here parses untrusted JSON and never throws; failures are zod issues.
 */

export const MAX_ID_CODE_POINTS = 128;
export const MAX_TEXT_BYTES = 64 * 1024;
export const MAX_LIST_ITEMS = 1000;

// ---------------------------------------------------------------- instants

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

const [DASH, COLON, DOT, MINUS, PLUS, T, Z] = ['-', ':', '.', '-', '+', 'T', 'Z'].map((c) => c.charCodeAt(0)) as [
  number,
  number,
  number,
  number,
  number,
  number,
  number,
];
/** (start, length) of YYYY, MM, DD, HH, MM, SS; (index, char code) of the separators between them. */
const DIGIT_FIELDS = [0, 4, 5, 2, 8, 2, 11, 2, 14, 2, 17, 2];
const SEPARATORS = [4, DASH, 7, DASH, 10, T, 13, COLON, 16, COLON];

/** The value of `count` ASCII digits at `start`, or -1 if one is not a digit. */
function digitsAt(s: string, start: number, count: number): number {
  let value = 0;
  for (let i = start; i < start + count; i++) {
    const digit = s.charCodeAt(i) - 48;
    if (!(digit >= 0 && digit <= 9)) return -1; // NaN past the end fails too
    value = value * 10 + digit;
  }
  return value;
}

/**
 * `YYYY-MM-DDTHH:MM:SS`, optional `.` and 1+ digits, then `Z` or `±HH:MM` ending the input
 * (INSTANT_PATTERN, but any number of fraction digits, so that too many get their own message).
 */
function readInstantShape(s: string): { fracDigits: number; offsetAt: number } | null {
  for (let f = 0; f < DIGIT_FIELDS.length; f += 2) if (digitsAt(s, DIGIT_FIELDS[f]!, DIGIT_FIELDS[f + 1]!) < 0) return null;
  for (let f = 0; f < SEPARATORS.length; f += 2) if (s.charCodeAt(SEPARATORS[f]!) !== SEPARATORS[f + 1]) return null;
  let offsetAt = 19;
  if (s.charCodeAt(19) === DOT) {
    offsetAt = 20;
    while (digitsAt(s, offsetAt, 1) >= 0) offsetAt++;
    if (offsetAt === 20) return null;
  }
  const sign = s.charCodeAt(offsetAt);
  const utc = sign === Z && s.length === offsetAt + 1;
  const offset = (sign === PLUS || sign === MINUS) && s.length === offsetAt + 6 && s.charCodeAt(offsetAt + 3) === COLON;
  if (!utc && !(offset && digitsAt(s, offsetAt + 1, 2) >= 0 && digitsAt(s, offsetAt + 4, 2) >= 0)) return null;
  return { fracDigits: Math.max(0, offsetAt - 20), offsetAt };
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
  // Read by hand, not by a regular expression: every instant of every command comes through here.
  const shape = readInstantShape(input);
  if (shape === null) {
    return {
      ok: false,
      message: 'must be an ISO-8601 date-time with seconds and a UTC offset, e.g. 2024-05-01T09:30:00Z',
    };
  }
  const { fracDigits, offsetAt } = shape;
  if (fracDigits > 3) {
    return { ok: false, message: 'must have at most millisecond precision (3 fraction digits)' };
  }
  const year = digitsAt(input, 0, 4);
  const month = digitsAt(input, 5, 2);
  const day = digitsAt(input, 8, 2);
  const hour = digitsAt(input, 11, 2);
  const minute = digitsAt(input, 14, 2);
  const second = digitsAt(input, 17, 2);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) {
    return { ok: false, message: 'is not a valid calendar date' };
  }
  if (hour > 23 || minute > 59 || second > 59) {
    return { ok: false, message: 'is not a valid time of day' };
  }
  const frac = input.slice(20, 20 + fracDigits);
  // UTC already: every 4-digit year is in range and only the milliseconds may need writing out
  // (cheaper than Date's toISOString, and most clients send UTC).
  if (offsetAt === input.length - 1) return { ok: true, value: fracDigits === 3 ? input : `${input.slice(0, 19)}.${frac.padEnd(3, '0')}Z` };
  const oh = digitsAt(input, offsetAt + 1, 2);
  const om = digitsAt(input, offsetAt + 4, 2);
  if (oh > 23 || om > 59) return { ok: false, message: 'has an invalid UTC offset' };
  const offsetMinutes = (input.charCodeAt(offsetAt) === MINUS ? -1 : 1) * (oh * 60 + om);
  const ms = Number(frac.padEnd(3, '0'));
  const epoch = utcEpochMs(year, month, day, hour, minute, second, ms) - offsetMinutes * 60_000;
  if (epoch < MIN_MS || epoch > MAX_MS) {
    return { ok: false, message: 'must lie between 0000-01-01T00:00:00Z and 9999-12-31T23:59:59.999Z' };
  }
  return { ok: true, value: new Date(epoch).toISOString() };
}

/**
 * A string check that reports each problem found. Plain `.check`, not a refinement or a
 * transform: those allocate per value (a closure, a pipe), and every field of every
 * command goes through here (a 1,000-command batch: ~7,000 strings).
 */
export function stringCheck(check: (s: string, problem: (message: string) => void) => void) {
  return (payload: z.core.ParsePayload<string>) =>
    check(payload.value, (message) => payload.issues.push({ code: 'custom', message, input: payload.value }));
}

/** Wire instant: accepted with any offset, output canonical UTC with milliseconds. */
export const instant = z
  .string()
  .check((payload) => {
    const r = parseInstant(payload.value);
    if (r.ok) payload.value = r.value;
    else payload.issues.push({ code: 'custom', message: r.message, input: payload.value });
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

// ---------------------------------------------------------------- durations

/** Weeks, or days and a time of hours, minutes and whole seconds; at least one part (`P`/`PT` alone is not one). */
export const RETENTION_PATTERN =
  '^P(?:\\d{1,7}W|\\d{1,7}D(?:T(?:\\d{1,7}H)?(?:\\d{1,7}M)?(?:\\d{1,7}S)?)?|T(?=\\d)(?:\\d{1,7}H)?(?:\\d{1,7}M)?(?:\\d{1,7}S)?)$';
const RETENTION = new RegExp(RETENTION_PATTERN);

/**
 * A retention: an ISO-8601 duration longer than zero. Years and months are refused: their
 * length depends on the calendar, and a retention must say exactly when content goes.
 */
export const retention = z
  .string()
  .check((payload) => {
    const s = payload.value;
    const problem = (message: string) => payload.issues.push({ code: 'custom', message, input: s });
    if (!RETENTION.test(s) || s.endsWith('T'))
      problem('must be an ISO-8601 duration of weeks, days, hours, minutes or whole seconds, e.g. P30D or PT12H (for years or months, give days)');
    else if (!/[1-9]/.test(s)) problem('must be longer than zero');
  })
  .meta({
    description: "ISO-8601 duration (weeks, days, hours, minutes, seconds) after which the content of the relation's facts is erased",
    pattern: RETENTION_PATTERN,
    examples: ['P30D', 'P1W', 'PT12H', 'P1DT6H'],
  });

/** An ISO-8601 duration of years, months, weeks, days, hours, minutes and whole seconds; zero allowed (`PT0S`). */
export const DURATION_PATTERN =
  '^P(?!$)(?:\\d{1,7}Y)?(?:\\d{1,7}M)?(?:\\d{1,7}W)?(?:\\d{1,7}D)?(?:T(?=\\d)(?:\\d{1,7}H)?(?:\\d{1,7}M)?(?:\\d{1,7}S)?)?$';
const DURATION = new RegExp(DURATION_PATTERN);

/**
 * How long something waits (a tier policy's `coldAfter`): unlike a retention it may be zero, and
 * years and months are allowed, counted as 365 and 30 days (cooling is a cost decision, never an erasure).
 */
export const duration = z
  .string()
  .check((payload) => {
    if (!DURATION.test(payload.value))
      payload.issues.push({ code: 'custom', message: 'must be an ISO-8601 duration such as P30D, PT12H or P1M', input: payload.value });
  })
  .meta({ description: 'ISO-8601 duration', pattern: DURATION_PATTERN, examples: ['P30D', 'PT12H', 'P1M'] });

// ---------------------------------------------------------------- strings

// eslint-disable-next-line no-control-regex -- identifiers must not contain control characters: this finds them
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
  .check(
    stringCheck((s, problem) => {
      const len = codePointLength(s);
      if (len < 1) problem('must not be empty');
      else if (len > MAX_ID_CODE_POINTS) problem(`must be at most ${MAX_ID_CODE_POINTS} characters`);
      if (CONTROL.test(s)) problem('must not contain control characters');
      if (hasLoneSurrogate(s)) problem('must be valid Unicode (lone surrogate)');
    }),
  )
  .meta({ minLength: 1, maxLength: MAX_ID_CODE_POINTS, description: '1..128 characters, no control characters' });

function textCheck(minCodePoints: number, nonBlank: boolean) {
  return stringCheck((s, problem) => {
    if (hasLoneSurrogate(s)) problem('must be valid Unicode (lone surrogate)');
    if (s.includes('\u0000')) problem('must not contain NUL characters');
    if (utf8ByteLength(s) > MAX_TEXT_BYTES) problem('must be at most 64 KiB in UTF-8');
    if (codePointLength(s) < minCodePoints) problem('must not be empty');
    else if (nonBlank && s.trim() === '') problem('must not be blank');
  });
}

const TEXT_DESCRIPTION = 'valid Unicode without NUL, at most 64 KiB in UTF-8';

/** Free text: valid Unicode, no NUL, at most 64 KiB UTF-8; may be empty. */
export const text = z.string().check(textCheck(0, false)).meta({ description: TEXT_DESCRIPTION });

/** Text with at least one character. */
export const nonEmptyText = z
  .string()
  .check(textCheck(1, false))
  .meta({ minLength: 1, description: `non-empty, ${TEXT_DESCRIPTION}` });

/** Text with at least one non-whitespace character (entity names, search queries). */
export const nonBlankText = z
  .string()
  .check(textCheck(1, true))
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
