import { deriveTopics, type TopicSource } from './topics';

const MEMORY = 'm';
const DAY = 86_400_000;

function at(iso: string): number {
  return Date.parse(iso);
}

function mention(id: string, person: string | null, when: string, text: string): TopicSource {
  return { kind: 'mention', id, text, at: at(when), person };
}

function fact(id: string, person: string, when: string, text: string): TopicSource {
  return { kind: 'fact', id, text, at: at(when), person };
}

function event(id: string, person: string, when: string, text: string): TopicSource {
  return { kind: 'event', id, text, at: at(when), person };
}

/** Five sessions over three months: Caroline's adoption runs through them, between small talk and Melanie's running. */
const ADOPTION: TopicSource[] = [
  mention('s1-t2', 'Caroline', '2023-03-10T18:02:00Z', 'I went to an adoption agency meeting, they explained the whole adoption process.'),
  fact('f-meeting', 'Caroline', '2023-03-10T18:02:00Z', 'Caroline attends an adoption agency meeting'),
  mention('s2-t3', 'Caroline', '2023-03-28T19:10:00Z', 'We started the adoption paperwork, the agency sent a huge stack of forms.'),
  mention('s3-t1', 'Caroline', '2023-04-20T17:30:00Z', 'The adoption agency scheduled our home study with a social worker.'),
  event('e-home-study', 'Caroline', '2023-04-27T10:00:00Z', 'Caroline has an adoption agency interview'),
  mention('s4-t2', 'Caroline', '2023-05-15T18:45:00Z', 'Big news: our adoption application was approved by the agency!'),
  mention(
    's5-t4',
    'Caroline',
    '2023-06-05T20:05:00Z',
    'The agency matched us, the adoption could be final soon and we may meet the child next month.',
  ),
];

const RUNNING: TopicSource[] = [
  mention('s1-t5', 'Melanie', '2023-03-10T18:06:00Z', 'I ran my first half marathon on Sunday, my legs are so sore from running.'),
  fact('f-marathon', 'Melanie', '2023-03-12T09:00:00Z', 'Melanie runs a half marathon'),
  mention('s2-t6', 'Melanie', '2023-03-28T19:15:00Z', 'Marathon training is going well, long runs every weekend.'),
  mention('s3-t4', 'Melanie', '2023-04-20T17:40:00Z', 'Running in the rain this morning was fun, training for the full marathon now.'),
  mention('s5-t1', 'Melanie', '2023-06-05T20:00:00Z', 'I signed up for the city marathon, training runs are getting longer.'),
];

const SMALL_TALK: TopicSource[] = [
  mention('s1-t1', 'Melanie', '2023-03-10T18:00:00Z', 'Hey Caroline! How have you been?'),
  mention('s1-t3', 'Melanie', '2023-03-10T18:03:00Z', 'That sounds exciting, good luck!'),
  mention('s1-t4', 'Caroline', '2023-03-10T18:05:00Z', 'Thanks so much, how about you?'),
  mention('s2-t1', 'Caroline', '2023-03-28T19:05:00Z', 'The weather has been lovely lately, I made pancakes for breakfast.'),
  mention('s2-t2', 'Melanie', '2023-03-28T19:07:00Z', 'Pancakes sound delicious, the kids love them too.'),
  mention('s3-t2', 'Caroline', '2023-04-20T17:35:00Z', 'I painted a sunset over the lake last weekend.'),
  mention('s3-t3', 'Melanie', '2023-04-20T17:37:00Z', 'That painting sounds beautiful, you should show me.'),
  mention('s4-t1', 'Melanie', '2023-05-15T18:40:00Z', 'Hi! What is new with you?'),
  mention('s4-t3', 'Melanie', '2023-05-15T18:47:00Z', 'Wow, congratulations, I am so happy for you!'),
  mention('s5-t2', 'Caroline', '2023-06-05T20:02:00Z', 'Good for you, I would love to see the race.'),
  mention('s5-t3', 'Melanie', '2023-06-05T20:03:00Z', 'By the way, the new bakery downtown is great.'),
];

const CONVERSATION = [...ADOPTION, ...RUNNING, ...SMALL_TALK];

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

function adoptionTopic(sources: readonly TopicSource[]) {
  const topics = deriveTopics(MEMORY, sources).filter((t) => t.person === 'Caroline' && t.title.includes('adoption'));
  expect(topics).toHaveLength(1);
  return topics[0]!;
}

describe('deriveTopics', () => {
  it('gathers one person’s adoption across sessions into one topic, leaving out small talk and the other person’s running', () => {
    const topic = adoptionTopic(CONVERSATION);

    // In time order; the fact and the turn it was read from share an instant, so the id decides.
    expect(topic.members).toEqual(['f-meeting', 's1-t2', 's2-t3', 's3-t1', 'e-home-study', 's4-t2', 's5-t4']);
    expect(topic.window).toEqual({ from: at('2023-03-10T18:02:00Z'), to: at('2023-06-05T20:05:00Z') + DAY });
    expect(topic.title).toMatch(/^Caroline: /);
    expect(topic.title.split(': ')[1]!.split(', ')).toHaveLength(3);
    expect(topic.title).toContain('adoption');
    expect(topic.topicId).toMatch(/^topic-[0-9a-f]{24}$/);

    // Extractive: whole member texts, at most three, in time order.
    const sentences = ADOPTION.map((s) => s.text).filter((text) => topic.summary.includes(text.replace(/[.!]$/, '')));
    expect(sentences.length).toBeGreaterThanOrEqual(1);
    expect(sentences.length).toBeLessThanOrEqual(3);
    expect(topic.summary).toContain('adoption');
    expect(topic.summary).not.toMatch(/marathon|pancake/i);
  });

  it('finds the other person’s running as their own topic', () => {
    const running = deriveTopics(MEMORY, CONVERSATION).filter((t) => t.person === 'Melanie');
    expect(running).toHaveLength(1);
    expect(running[0]!.members).toEqual(RUNNING.map((s) => s.id));
    expect(running[0]!.title).toMatch(/^Melanie: .*marathon/);
  });

  it('makes no topic of a one-off remark, of small talk, or of items said on a single day', () => {
    const topics = deriveTopics(MEMORY, CONVERSATION);
    const members = new Set(topics.flatMap((t) => t.members));
    for (const s of SMALL_TALK) expect(members.has(s.id)).toBe(false);
    expect(topics.some((t) => /paint|sunset/.test(t.title))).toBe(false);

    const sameDay = ADOPTION.map((s, i) => ({ ...s, at: at('2023-03-10T18:00:00Z') + i * 60_000 }));
    expect(deriveTopics(MEMORY, sameDay)).toEqual([]);
    expect(deriveTopics(MEMORY, ADOPTION.slice(0, 2))).toEqual([]);
  });

  it('splits a topic where the gap between its items exceeds the largest gap', () => {
    expect(deriveTopics(MEMORY, ADOPTION, { maxGapMs: 10 * DAY })).toEqual([]);
    expect(deriveTopics(MEMORY, ADOPTION, { maxGapMs: 30 * DAY })).toHaveLength(1);
  });

  it('keeps the topic id when a later run adds members, and extends the window', () => {
    const before = adoptionTopic(CONVERSATION);
    const later = mention('s6-t1', 'Caroline', '2023-07-02T18:00:00Z', 'The adoption is final, the agency says the child comes home in August!');
    const after = adoptionTopic([...CONVERSATION, later]);

    expect(after.topicId).toBe(before.topicId);
    expect(after.members).toEqual([...before.members, 's6-t1']);
    expect(after.window).toEqual({ from: before.window.from, to: at('2023-07-02T18:00:00Z') + DAY });
  });

  it('derives its ids from the memory, the person and the earliest member', () => {
    const here = adoptionTopic(CONVERSATION);
    const elsewhere = deriveTopics('other-memory', CONVERSATION).find((t) => t.person === 'Caroline')!;
    expect(elsewhere.members).toEqual(here.members);
    expect(elsewhere.topicId).not.toBe(here.topicId);
  });

  it('gives the same output for the same input in any order', () => {
    const expected = deriveTopics(MEMORY, CONVERSATION);
    expect(expected.length).toBeGreaterThanOrEqual(2);
    for (const seed of [1, 7, 42, 2024]) expect(deriveTopics(MEMORY, shuffled(CONVERSATION, seed))).toEqual(expected);
    expect(deriveTopics(MEMORY, [...CONVERSATION].reverse())).toEqual(expected);
    // A repeated item counts once.
    expect(deriveTopics(MEMORY, [...CONVERSATION, ...ADOPTION])).toEqual(expected);
  });

  it('orders topics by window start, then id', () => {
    const topics = deriveTopics(MEMORY, CONVERSATION);
    const order = [...topics].sort((a, b) => a.window.from - b.window.from || (a.topicId < b.topicId ? -1 : 1));
    expect(topics.map((t) => t.topicId)).toEqual(order.map((t) => t.topicId));
  });

  it('prefers a statement over a mention that says as much', () => {
    const sources = [
      mention('a', 'Dana', '2024-01-01T10:00:00Z', 'Knee surgery recovery, physiotherapy!'),
      fact('b', 'Dana', '2024-01-01T10:00:00Z', 'Knee surgery recovery and physiotherapy'),
      mention('c', 'Dana', '2024-01-20T10:00:00Z', 'The knee surgery again'),
    ];
    const [topic] = deriveTopics(MEMORY, sources, { maxSummarySentences: 1 });
    expect(topic!.members).toEqual(['a', 'b', 'c']);
    // The mention comes first and covers as much: the fact is kept all the same, ended as a sentence.
    expect(topic!.summary).toBe('Knee surgery recovery and physiotherapy.');
    // Nothing the other members say is left uncovered: no sentence repeats it.
    expect(deriveTopics(MEMORY, sources, { maxSummarySentences: 3 })[0]!.summary).toBe('Knee surgery recovery and physiotherapy.');
  });

  it('groups items about nobody in particular as their own group, titled by keywords only', () => {
    const sources = ['2024-02-01', '2024-02-10', '2024-02-20'].map((day, i) =>
      mention(`n${i}`, null, `${day}T12:00:00Z`, `The knee trouble is back, the knee swelling makes stairs hard (${i}).`),
    );
    const [topic] = deriveTopics(MEMORY, sources);
    expect(topic!.person).toBeNull();
    expect(topic!.title).toMatch(/^knee, /);
  });

  it('trims each summary sentence to 300 characters', () => {
    const long = 'The knee trouble continues. ' + 'word '.repeat(200);
    const sources = ['2024-02-01', '2024-02-10', '2024-02-20'].map((day, i) =>
      mention(`k${i}`, 'Dana', `${day}T12:00:00Z`, `knee trouble ${i} ${long}`),
    );
    const [topic] = deriveTopics(MEMORY, sources, { maxSummarySentences: 1 });
    expect(Array.from(topic!.summary).length).toBeLessThanOrEqual(300);
    expect(topic!.summary.endsWith('…')).toBe(true);
  });

  describe('with embeddings', () => {
    function unit(...xs: number[]): number[] {
      const norm = Math.hypot(...xs);
      return xs.map((x) => x / norm);
    }
    // Words that share nothing: only the embeddings relate them.
    const TEXTS = ['Adopting a child', 'Paperwork for the agency', 'Home study visit', 'Judge approves the application'];
    const DAYS = ['2024-03-01', '2024-03-15', '2024-04-01', '2024-04-20'];

    it('clusters by vector where words would not', () => {
      const sources: TopicSource[] = [
        ...TEXTS.map((text, i) => ({ ...mention(`a${i}`, 'Caroline', `${DAYS[i]}T10:00:00Z`, text), vector: unit(1, 0.1 * i, 0) })),
        ...TEXTS.map((text, i) => ({
          ...mention(`b${i}`, 'Caroline', `${DAYS[i]}T11:00:00Z`, `${text} again`),
          vector: new Float32Array(unit(0, 0.1 * i, 1)),
        })),
      ];
      const topics = deriveTopics(MEMORY, sources);
      expect(topics.map((t) => t.members)).toEqual([
        ['a0', 'a1', 'a2', 'a3'],
        ['b0', 'b1', 'b2', 'b3'],
      ]);
      expect(topics[0]!.summary).not.toBe('');

      const lexicalOnly = sources.filter((s) => s.id.startsWith('a')).map(({ vector: _vector, ...s }) => s);
      expect(deriveTopics(MEMORY, lexicalOnly)).toEqual([]);
    });

    it('keeps apart items whose words agree but whose embeddings do not', () => {
      const sources: TopicSource[] = DAYS.map((day, i) => ({
        ...mention(`x${i}`, 'Caroline', `${day}T10:00:00Z`, 'adoption agency adoption'),
        vector: i % 2 === 0 ? unit(1, 0, 0) : unit(0, 0, 1),
      }));
      expect(deriveTopics(MEMORY, sources)).toEqual([]);
      expect(deriveTopics(MEMORY, sources, { similarity: -1 })).toHaveLength(1);
    });
  });

  it('handles a hundred thousand items', () => {
    const words = Array.from(
      { length: 400 },
      (_, i) => `topic${String.fromCharCode(97 + (i % 26))}${String.fromCharCode(97 + Math.floor(i / 26))}word`,
    );
    const people = ['Ann', 'Bob', 'Cy', 'Di', null];
    let state = 12345;
    const next = (n: number): number => {
      state = (state * 48271) % 2147483647;
      return state % n;
    };
    const sources: TopicSource[] = Array.from({ length: 100_000 }, (_, i) => ({
      kind: 'mention' as const,
      id: `t${i}`,
      text: `${words[next(400)]} ${words[next(400)]} ${words[next(400)]} and small talk`,
      at: at('2023-01-01T00:00:00Z') + i * 5 * 60_000,
      person: people[next(people.length)]!,
    }));
    const started = Date.now();
    const topics = deriveTopics(MEMORY, sources);
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(topics.every((t) => t.members.length >= 3)).toBe(true);
  });
});
