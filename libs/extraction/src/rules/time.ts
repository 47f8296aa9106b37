import * as chrono from 'chrono-node';

/** A resolved time: the span it names (UTC, `to` exclusive) and the words that named it (none when it fell back to the turn's day). */
export interface TimeSpan {
  from: string;
  to: string;
  expression: string | null;
}

const DAY = 86_400_000;

const NUMBER_WORDS: Record<string, number> = {
  a: 1,
  an: 1,
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  few: 3,
  couple: 2,
};

const SEASONS: Record<string, [number, number]> = { spring: [2, 5], summer: [5, 8], fall: [8, 11], autumn: [8, 11], winter: [11, 14] };

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

function dayStart(ms: number): number {
  return Math.floor(ms / DAY) * DAY;
}

function daySpan(ms: number, expression: string | null): TimeSpan {
  const from = dayStart(ms);
  return { from: iso(from), to: iso(from + DAY), expression };
}

function monthSpan(year: number, month: number, expression: string): TimeSpan {
  return { from: iso(Date.UTC(year, month, 1)), to: iso(Date.UTC(year, month + 1, 1)), expression };
}

function yearSpan(year: number, expression: string): TimeSpan {
  return { from: iso(Date.UTC(year, 0, 1)), to: iso(Date.UTC(year + 1, 0, 1)), expression };
}

/** The Monday-based week containing `ms`, shifted by `weeks`. */
function weekSpan(ms: number, weeks: number, expression: string): TimeSpan {
  const day = dayStart(ms);
  const monday = day - ((new Date(day).getUTCDay() + 6) % 7) * DAY + weeks * 7 * DAY;
  return { from: iso(monday), to: iso(monday + 7 * DAY), expression };
}

/**
 * Spans chrono reads as points or not at all ("last week" as one day, "in 2022", seasons):
 * the calendar unit the words name, relative to the turn's time.
 */
function calendarSpan(text: string, atMs: number): TimeSpan | null {
  const at = new Date(atMs);
  const year = at.getUTCFullYear();
  const month = at.getUTCMonth();
  let m = /\b(last|next|this|past|coming)\s+(week|weekend|month|year)\b/i.exec(text);
  if (m) {
    const shift = /last|past/i.test(m[1]!) ? -1 : /next|coming/i.test(m[1]!) ? 1 : 0;
    const unit = m[2]!.toLowerCase();
    if (unit === 'week') return weekSpan(atMs, shift, m[0]);
    if (unit === 'month') return monthSpan(year, month + shift, m[0]);
    if (unit === 'year') return yearSpan(year + shift, m[0]);
    // A weekend: Saturday and Sunday of the week named ("this weekend" said on a Monday is the one just past).
    const week = weekSpan(atMs, shift === 0 && at.getUTCDay() >= 1 && at.getUTCDay() <= 3 ? -1 : shift, m[0]);
    const saturday = Date.parse(week.from) + 5 * DAY;
    return { from: iso(saturday), to: iso(saturday + 2 * DAY), expression: m[0] };
  }
  m = /\b(?:in|since|during|from)\s+((?:19|20)\d\d)\b/i.exec(text);
  if (m) return yearSpan(Number(m[1]), m[0]);
  m = /\b(last|next|this|past)\s+(spring|summer|fall|autumn|winter)\b/i.exec(text);
  if (m) {
    const [start, end] = SEASONS[m[2]!.toLowerCase()]!;
    const inSeason = month >= start && month < end;
    let y = year;
    if (/last|past/i.test(m[1]!)) y = month < end ? year - 1 : year;
    else if (/next/i.test(m[1]!)) y = month >= start ? year + 1 : year;
    else if (!inSeason && month < start) y = year;
    return { from: iso(Date.UTC(y, start, 1)), to: iso(Date.UTC(y, end, 1)), expression: m[0] };
  }
  m = /\b(a|an|one|two|three|four|five|six|seven|eight|nine|ten|few|couple|\d+)\s+(?:of\s+)?(years?|months?|weeks?)\s+ago\b/i.exec(text);
  if (m) {
    const n = NUMBER_WORDS[m[1]!.toLowerCase()] ?? Number(m[1]);
    const unit = m[2]!.toLowerCase();
    if (unit.startsWith('year')) return yearSpan(year - n, m[0]);
    if (unit.startsWith('month')) return monthSpan(year, month - n, m[0]);
    return weekSpan(atMs, -n, m[0]);
  }
  return null;
}

/** chrono's reading, widened to the unit it knows (a day, a month or a year); time-of-day-only readings are not dates. */
function chronoSpan(text: string, atMs: number, past: boolean): TimeSpan | null {
  for (const result of chrono.parse(text, { instant: new Date(atMs), timezone: 0 })) {
    const start = result.start;
    const words = result.text;
    if (
      start.isCertain('day') ||
      start.isCertain('weekday') ||
      /\b(yesterday|today|tonight|tomorrow|morning|evening|night|afternoon)\b/i.test(words)
    ) {
      let ms = start.date().getTime();
      // A weekday said of the past ("on Friday I went") is the last one, never the next.
      if (past && ms > atMs && !start.isCertain('day') && !/\bnext\b/i.test(words)) ms -= 7 * DAY;
      return daySpan(ms, words);
    }
    if (start.isCertain('month')) {
      const date = start.date();
      let y = start.isCertain('year') ? date.getUTCFullYear() : new Date(atMs).getUTCFullYear();
      // A month named without a year, in a past statement, lies at or before the turn.
      if (!start.isCertain('year') && past && Date.UTC(y, date.getUTCMonth(), 1) > atMs) y -= 1;
      return monthSpan(y, date.getUTCMonth(), words);
    }
    if (start.isCertain('year')) return yearSpan(start.date().getUTCFullYear(), words);
  }
  return null;
}

/**
 * The time a sentence's own words give ("yesterday", "last Saturday", "next month", "in 2022"),
 * resolved against the turn's `at`; without any, the day of `at`. `past` says the sentence
 * tells of the past, which decides the reading of a bare weekday or month.
 */
export function resolveTimeSpan(text: string, at: string, past: boolean): TimeSpan {
  const atMs = Date.parse(at);
  return calendarSpan(text, atMs) ?? chronoSpan(text, atMs, past) ?? daySpan(atMs, null);
}

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

function dayWords(ms: number): string {
  const d = new Date(ms);
  return `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}`;
}

/**
 * A span in words, as an event's summary says when it happened: "19 January 2023", "January 2023",
 * "2022", "the week of 16 January 2023", "16–17 January 2023"; a span without words of its own (the day
 * of the telling) is "around <day>", since the turn says it happened just before.
 */
export function spanWords(span: TimeSpan, at: string): string {
  const from = Date.parse(span.from);
  const to = Date.parse(span.to);
  const start = new Date(from);
  if (span.expression === null) return `around ${dayWords(Date.parse(at))}`;
  if (to - from === DAY) return dayWords(from);
  if (start.getUTCDate() === 1 && start.getUTCMonth() === 0 && to === Date.UTC(start.getUTCFullYear() + 1, 0, 1))
    return String(start.getUTCFullYear());
  if (start.getUTCDate() === 1 && to === Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 1, 1)) {
    return `${MONTHS[start.getUTCMonth()]} ${start.getUTCFullYear()}`;
  }
  if (to - from === 7 * DAY) return `the week of ${dayWords(from)}`;
  return `${dayWords(from)} to ${dayWords(to - DAY)}`;
}
