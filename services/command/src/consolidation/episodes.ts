import { createHash } from 'node:crypto';

/** An event as consolidation sees it. */
export interface EpisodeSource {
  eventId: string;
  summary: string;
  /** Entity ids. */
  participants: readonly string[];
  /** Epoch ms. */
  from: number;
  to: number | null;
  salience: number;
}

/** What an `UPSERT_EPISODE` carries. */
export interface EpisodeDraft {
  episodeId: string;
  title: string;
  /** Half-open: the calendar period the events fall in. */
  window: { from: number; to: number };
  events: string[];
}

const DAY_MS = 86_400_000;
const DEFAULT_MAX_SALIENCE = 0.5;
const DEFAULT_MIN_EVENTS = 2;
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/**
 * Gathers the low-salience events of a memory into episodes, so that what is individually too minor to
 * keep in view survives as "what these people did that month". Events below `maxSalience` are grouped
 * by their participant set and the calendar period (UTC ISO week or UTC month) their start falls in; a
 * group of at least `minEvents` is an episode spanning the period. The episode id depends on the memory,
 * the participants and the period only, so a later run that finds more events updates the same episode.
 * Same input, in any order: same output.
 */
export function deriveEpisodes(
  memoryId: string,
  events: readonly EpisodeSource[],
  options: { maxSalience?: number; period?: 'week' | 'month'; minEvents?: number; names?: (entityId: string) => string } = {},
): EpisodeDraft[] {
  const maxSalience = options.maxSalience ?? DEFAULT_MAX_SALIENCE;
  const period = options.period ?? 'month';
  const minEvents = Math.max(1, options.minEvents ?? DEFAULT_MIN_EVENTS);
  const names = options.names ?? ((entityId: string) => entityId);

  // One event per id whatever the input order: the earliest, then the first by summary.
  const byId = events
    .filter((e) => e.salience < maxSalience && Number.isFinite(e.from))
    .sort((a, b) => compareStrings(a.eventId, b.eventId) || a.from - b.from || compareStrings(a.summary, b.summary));
  const unique = byId.filter((e, i) => i === 0 || e.eventId !== byId[i - 1]!.eventId);

  const groups = new Map<string, { participants: string[]; start: number; end: number; label: string; events: EpisodeSource[] }>();
  for (const event of unique) {
    const participants = [...new Set(event.participants)].sort(compareStrings);
    const { start, end, label } = period === 'week' ? isoWeek(event.from) : month(event.from);
    // Ids hold no control characters, so NUL separates them unambiguously.
    const key = `${participants.join('\u0000')}\u0000\u0000${start}`;
    const group = groups.get(key);
    if (group === undefined) groups.set(key, { participants, start, end, label, events: [event] });
    else group.events.push(event);
  }

  const episodes: EpisodeDraft[] = [];
  for (const group of groups.values()) {
    if (group.events.length < minEvents) continue;
    const startIso = new Date(group.start).toISOString();
    const people = group.participants
      .map((p) => ({ id: p, name: names(p) }))
      .sort((a, b) => compareStrings(a.name, b.name) || compareStrings(a.id, b.id));
    const who = listOf(people.map((p) => p.name));
    episodes.push({
      episodeId: 'episode-' + sha256Hex([memoryId, ...group.participants, startIso].join('\u0000')).slice(0, 24),
      title: who === '' ? capitalize(group.label) : `${who} — ${group.label}`,
      window: { from: group.start, to: group.end },
      events: group.events.sort((a, b) => a.from - b.from || compareStrings(a.eventId, b.eventId)).map((e) => e.eventId),
    });
  }
  return episodes.sort((a, b) => a.window.from - b.window.from || compareStrings(a.episodeId, b.episodeId));
}

/** The UTC calendar month containing `at`. */
function month(at: number): { start: number; end: number; label: string } {
  const date = new Date(at);
  const year = date.getUTCFullYear();
  const index = date.getUTCMonth();
  return { start: Date.UTC(year, index, 1), end: Date.UTC(year, index + 1, 1), label: `${MONTHS[index]!} ${year}` };
}

/** The ISO week (Monday to Monday, UTC) containing `at`, labelled by its Monday. */
function isoWeek(at: number): { start: number; end: number; label: string } {
  const date = new Date(at);
  const sinceMonday = (date.getUTCDay() + 6) % 7;
  const start = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate()) - sinceMonday * DAY_MS;
  const monday = new Date(start);
  return {
    start,
    end: start + 7 * DAY_MS,
    label: `week of ${monday.getUTCDate()} ${MONTHS[monday.getUTCMonth()]!} ${monday.getUTCFullYear()}`,
  };
}

/** "A", "A and B", "A, B and C". */
function listOf(names: readonly string[]): string {
  if (names.length <= 1) return names[0] ?? '';
  return `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]!}`;
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** Code-unit order: the same on every machine, unlike a locale's collation. */
function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
