import { deriveEpisodes, type EpisodeSource } from './episodes';

const MEMORY = 'm';
const NAMES: Record<string, string> = { 'ent-car': 'Caroline', 'ent-mel': 'Melanie', 'ent-dan': 'Dana' };
const names = (entityId: string): string => NAMES[entityId] ?? entityId;

function event(eventId: string, when: string, participants: string[], salience = 0.2, summary = eventId): EpisodeSource {
  return { eventId, summary, participants, from: Date.parse(when), to: null, salience };
}

const EVENTS: EpisodeSource[] = [
  event('e-coffee', '2023-05-09T10:00:00Z', ['ent-car', 'ent-mel']),
  event('e-walk', '2023-05-02T17:00:00Z', ['ent-mel', 'ent-car']),
  event('e-call', '2023-05-20T19:00:00Z', ['ent-car', 'ent-mel', 'ent-car']),
  // Salient enough to stand on its own: not gathered.
  event('e-wedding', '2023-05-14T12:00:00Z', ['ent-car', 'ent-mel'], 0.9),
  // Alone in its participant set and month.
  event('e-dentist', '2023-05-11T08:00:00Z', ['ent-car']),
  event('e-lunch', '2023-06-01T12:00:00Z', ['ent-car', 'ent-mel']),
  event('e-movie', '2023-06-30T23:30:00Z', ['ent-car', 'ent-mel']),
  // Same period, another participant set.
  event('e-gym', '2023-05-03T07:00:00Z', ['ent-dan', 'ent-car']),
  event('e-run', '2023-05-24T07:00:00Z', ['ent-car', 'ent-dan']),
];

/** A deterministic permutation (Park–Miller), so a failing order can be replayed. */
function shuffled<T>(items: readonly T[], seed: number): T[] {
  const copy = [...items];
  let state = seed;
  for (let i = copy.length - 1; i > 0; i--) {
    state = (state * 48271) % 2147483647;
    const j = state % (i + 1);
    [copy[i], copy[j]] = [copy[j]!, copy[i]!];
  }
  return copy;
}

describe('deriveEpisodes', () => {
  it('gathers the low-salience events of one participant set and month, leaving out salient and lone events', () => {
    const episodes = deriveEpisodes(MEMORY, EVENTS, { names });

    const byTitle = [...episodes].sort((a, b) => (a.title < b.title ? -1 : 1));
    expect(byTitle.map((e) => ({ title: e.title, window: e.window, events: e.events }))).toEqual([
      {
        title: 'Caroline and Dana — May 2023',
        window: { from: Date.UTC(2023, 4, 1), to: Date.UTC(2023, 5, 1) },
        events: ['e-gym', 'e-run'],
      },
      {
        title: 'Caroline and Melanie — June 2023',
        window: { from: Date.UTC(2023, 5, 1), to: Date.UTC(2023, 6, 1) },
        events: ['e-lunch', 'e-movie'],
      },
      {
        title: 'Caroline and Melanie — May 2023',
        window: { from: Date.UTC(2023, 4, 1), to: Date.UTC(2023, 5, 1) },
        events: ['e-walk', 'e-coffee', 'e-call'],
      },
    ]);
    for (const e of episodes) expect(e.episodeId).toMatch(/^episode-[0-9a-f]{24}$/);
    expect(new Set(episodes.map((e) => e.episodeId)).size).toBe(3);
  });

  it('orders episodes by window start, then id', () => {
    const episodes = deriveEpisodes(MEMORY, EVENTS);
    const order = [...episodes].sort((a, b) => a.window.from - b.window.from || (a.episodeId < b.episodeId ? -1 : 1));
    expect(episodes.map((e) => e.episodeId)).toEqual(order.map((e) => e.episodeId));
    expect(episodes[episodes.length - 1]!.window.from).toBe(Date.UTC(2023, 5, 1));
  });

  it('titles with entity ids when no names are given', () => {
    const titles = deriveEpisodes(MEMORY, EVENTS).map((e) => e.title);
    expect(titles).toContain('ent-car and ent-mel — May 2023');
  });

  it('groups by UTC ISO week when asked, Monday to Monday', () => {
    const week = [
      event('w1', '2023-05-08T00:00:00Z', ['ent-car', 'ent-mel']), // Monday
      event('w2', '2023-05-14T23:59:59Z', ['ent-car', 'ent-mel']), // Sunday
      event('w3', '2023-05-15T00:00:00Z', ['ent-car', 'ent-mel']), // the next Monday
      event('w4', '2023-05-07T23:59:59Z', ['ent-car', 'ent-mel']), // the Sunday before
    ];
    const episodes = deriveEpisodes(MEMORY, week, { period: 'week', names, minEvents: 2 });
    expect(episodes).toHaveLength(1);
    expect(episodes[0]).toMatchObject({
      title: 'Caroline and Melanie — week of 8 May 2023',
      window: { from: Date.UTC(2023, 4, 8), to: Date.UTC(2023, 4, 15) },
      events: ['w1', 'w2'],
    });
    // Each week is labelled by its Monday, whatever month or year its other days fall in.
    const turn = [event('y1', '2024-01-01T09:00:00Z', ['ent-dan']), event('y2', '2023-12-31T09:00:00Z', ['ent-dan'])];
    expect(deriveEpisodes(MEMORY, turn, { period: 'week', names })).toEqual([]);
    expect(deriveEpisodes(MEMORY, turn, { period: 'week', names, minEvents: 1 }).map((e) => e.title)).toEqual([
      'Dana — week of 25 December 2023',
      'Dana — week of 1 January 2024',
    ]);
    const across = [event('y1', '2024-01-02T09:00:00Z', ['ent-dan']), event('y2', '2024-01-06T09:00:00Z', ['ent-dan'])];
    expect(deriveEpisodes(MEMORY, across, { period: 'week', names })[0]!.title).toBe('Dana — week of 1 January 2024');
  });

  it('honours the salience ceiling and the minimum number of events', () => {
    expect(deriveEpisodes(MEMORY, EVENTS, { maxSalience: 0.1 })).toEqual([]);
    const withWedding = deriveEpisodes(MEMORY, EVENTS, { maxSalience: 1, names }).find((e) => e.title === 'Caroline and Melanie — May 2023')!;
    expect(withWedding.events).toEqual(['e-walk', 'e-coffee', 'e-wedding', 'e-call']);
    const single = deriveEpisodes(MEMORY, EVENTS, { minEvents: 1, names }).map((e) => e.title);
    expect(single).toContain('Caroline — May 2023');
    expect(deriveEpisodes(MEMORY, EVENTS, { minEvents: 3 })).toHaveLength(1);
  });

  it('keeps the episode id when a later run finds more events, and derives it from memory, participants and period', () => {
    const before = deriveEpisodes(MEMORY, EVENTS);
    const after = deriveEpisodes(MEMORY, [...EVENTS, event('e-late', '2023-05-31T22:00:00Z', ['ent-mel', 'ent-car'])]);
    expect(after.map((e) => e.episodeId)).toEqual(before.map((e) => e.episodeId));
    const may = after.find((e) => e.events.includes('e-late'))!;
    expect(may.events).toEqual(['e-walk', 'e-coffee', 'e-call', 'e-late']);

    const elsewhere = deriveEpisodes('other-memory', EVENTS);
    expect(elsewhere.map((e) => e.events)).toEqual(before.map((e) => e.events));
    for (const [i, e] of elsewhere.entries()) expect(e.episodeId).not.toBe(before[i]!.episodeId);
    // Names are presentation only.
    expect(
      deriveEpisodes(MEMORY, EVENTS, { names })
        .map((e) => e.episodeId)
        .sort(),
    ).toEqual(before.map((e) => e.episodeId).sort());
  });

  it('gives the same output for the same input in any order, an event repeated counting once', () => {
    const expected = deriveEpisodes(MEMORY, EVENTS, { names });
    for (const seed of [1, 7, 42, 2024]) expect(deriveEpisodes(MEMORY, shuffled(EVENTS, seed), { names })).toEqual(expected);
    expect(deriveEpisodes(MEMORY, [...EVENTS, ...EVENTS].reverse(), { names })).toEqual(expected);
  });

  it('lists three or more participants as English does', () => {
    const three = [
      event('t1', '2023-05-02T10:00:00Z', ['ent-mel', 'ent-dan', 'ent-car']),
      event('t2', '2023-05-05T10:00:00Z', ['ent-car', 'ent-dan', 'ent-mel']),
    ];
    expect(deriveEpisodes(MEMORY, three, { names })[0]!.title).toBe('Caroline, Dana and Melanie — May 2023');
  });
});
