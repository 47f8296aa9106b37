import { searchResponse, toDomainCommand, wireCommand } from '@memotrace/contracts';
import fc from 'fast-check';
import { type Command, type Cut, type Instant, type MemoryRecord, decideBatch, fold } from '@memotrace/domain';
import { cl100k } from './cl100k';
import { SearchCorpora } from './corpora';
import type { CutItems } from './cut-items';
import type { Candidate } from './items';
import { ListCutItems, referenceCut } from './reference-cut';
import { type SearchInput, resolveIntent, searchMemory as searchOver } from './search';
import { itemInterval, overlaps } from './temporal-intent';
import { LogSearchFeed } from './testing/log-feed';
import { PORTO_SAID_AT, PORTO_TRIP } from './testing/porto-trip';
import { ReplayMemoryQueries } from '../replay-queries';

/**
 * searchMemory over an in-memory log, its cut read two ways: through the read port
 * answered by the domain's own cut functions (what `consistency=replay` does), and
 * through the in-process corpus fed with the log's rows. Both must pass every test.
 */
const MEMORY = 'story';
const MON = '2024-05-06T09:00:00.000Z';
const WED = '2024-05-08T00:00:00.000Z';
const WED_NOON = '2024-05-08T12:00:00.000Z';
const THU = '2024-05-09T10:00:00.000Z';
const LATER = '2024-06-01T00:00:00.000Z';

/** A command without its id: the log assigns one. */
type CommandInput = Command extends infer C ? (C extends Command ? Omit<C, 'commandId'> : never) : never;

/** A memory's log, built command by command, and the read port over it. */
class StoryLog {
  readonly log: MemoryRecord[] = [];
  readonly queries = new ReplayMemoryQueries({ read: async (memoryId) => (memoryId === MEMORY ? this.log : []) });
  private n = 0;

  apply(commands: CommandInput[], now: Instant): void {
    const batch = commands.map((c) => ({ ...c, commandId: `c${++this.n}` }) as Command);
    this.log.push(...decideBatch(MEMORY, fold(this.log), batch, now).records);
  }
}

/** The README story with its evidence: mentions, an event and an episode on Monday; the move learnt on Thursday. */
function story(): StoryLog {
  const q = new StoryLog();
  q.apply(
    [
      { op: 'UPSERT_ENTITY', entityId: 'alice', name: 'Alice', recordedAt: MON },
      { op: 'UPSERT_ENTITY', entityId: 'acme', name: 'Acme', recordedAt: MON },
      { op: 'UPSERT_ENTITY', entityId: 'beta', name: 'Beta', recordedAt: MON },
      { op: 'DEFINE_RELATION', rel: 'works_at', cardinality: 'one', recordedAt: MON },
      {
        op: 'RECORD_MENTION',
        mentionId: 'm-mon',
        docId: 'chat',
        text: 'I started at Acme today',
        speaker: 'Alice',
        occurredAt: MON,
        recordedAt: MON,
      },
      {
        op: 'UPSERT_EDGE',
        factId: 'alice-acme',
        src: 'alice',
        rel: 'works_at',
        dst: 'acme',
        validFrom: '2024-05-06T00:00:00.000Z',
        evidence: ['m-mon'],
        recordedAt: MON,
      },
      {
        op: 'UPSERT_EDGE',
        factId: 'alice-age',
        src: 'alice',
        rel: 'age',
        dst: { literal: 34, datatype: 'number' },
        validFrom: '2024-01-01T00:00:00.000Z',
        recordedAt: MON,
      },
      {
        op: 'UPSERT_EVENT',
        eventId: 'ev-join',
        summary: 'Alice joined Acme',
        includesFacts: ['alice-acme'],
        timeSpan: { from: '2024-05-06T00:00:00.000Z' },
        recordedAt: MON,
      },
      {
        op: 'UPSERT_EPISODE',
        episodeId: 'ep-onboarding',
        title: 'Alice onboarding at Acme',
        window: { from: '2024-05-06T00:00:00.000Z' },
        events: ['ev-join'],
        recordedAt: MON,
      },
    ],
    MON,
  );
  q.apply(
    [
      {
        op: 'RECORD_MENTION',
        mentionId: 'm-thu',
        docId: 'chat',
        text: 'I moved to Beta yesterday, Beta is great',
        speaker: 'Alice',
        occurredAt: THU,
        recordedAt: THU,
      },
      { op: 'UPSERT_EDGE', factId: 'alice-beta', src: 'alice', rel: 'works_at', dst: 'beta', validFrom: WED, evidence: ['m-thu'], recordedAt: THU },
    ],
    THU,
  );
  return q;
}

const ids = (r: { items: { id: string }[] }) => r.items.map((i) => i.id);

type CutOf = (q: StoryLog, memoryId: string, cut: Cut) => Promise<CutItems>;
const IMPLEMENTATIONS: [string, CutOf][] = [
  ['the read port (reference)', (q, memoryId, cut) => referenceCut(q.queries, memoryId, cut)],
  ['the corpus', (q, memoryId, cut) => new SearchCorpora(new LogSearchFeed((id) => (id === MEMORY ? q.log : []))).cut(memoryId, cut)],
];

describe.each(IMPLEMENTATIONS)('searchMemory over %s', (_, cutOf) => {
  const searchMemory = async (q: StoryLog, memoryId: string, cut: Cut, input: SearchInput) => searchOver(await cutOf(q, memoryId, cut), input);

  it('As-Recorded@Wednesday noon: nothing learnt on Thursday, even what matches best', async () => {
    const result = await searchMemory(story(), MEMORY, { validAt: WED_NOON, recordedAt: WED_NOON }, { query: 'Alice Beta', k: 10 });
    // The query names Alice: the facts about her rank up as her own words would.
    expect(ids(result)).toEqual(['alice-acme', 'alice-age', 'm-mon', 'ep-onboarding', 'ev-join']);
    expect(result.items.every((i) => i.recordedFrom <= WED_NOON)).toBe(true);
  });

  it('As-World@Wednesday noon: by later knowledge, Alice works at Beta', async () => {
    const result = await searchMemory(story(), MEMORY, { validAt: WED_NOON, recordedAt: LATER }, { query: 'works at Beta', k: 10 });
    // alice-age shares the entity alice with the best hit, m-mon is the turn next to m-thu: graph expansion.
    expect(ids(result)).toEqual(['alice-beta', 'alice-age', 'm-thu', 'm-mon']);
    expect(result.items[0]).toMatchObject({
      kind: 'fact',
      text: 'Alice works at Beta',
      validFrom: WED,
      validTo: null,
      recordedFrom: THU,
      evidence: [{ kind: 'mention', id: 'm-thu' }],
    });
  });

  it('the valid-time cut applies to facts, events and episodes, but not to mentions', async () => {
    const sunday = '2024-05-05T00:00:00.000Z';
    const result = await searchMemory(story(), MEMORY, { validAt: sunday, recordedAt: LATER }, { query: 'Acme Beta', k: 10 });
    expect(ids(result)).toEqual(['m-thu', 'm-mon']);
    const any = await searchMemory(story(), MEMORY, { validAt: '*', recordedAt: LATER }, { query: 'Acme', k: 10 });
    // By score: direct hits first; alice-age, alice-beta (entity alice) and m-thu (next turn) by expansion.
    expect(ids(any)).toEqual(['ep-onboarding', 'ev-join', 'm-mon', 'alice-acme', 'm-thu', 'alice-age', 'alice-beta']);
  });

  it("a query that names a speaker ranks that speaker's own words first", async () => {
    const chat = new StoryLog();
    chat.apply(
      [
        {
          op: 'RECORD_MENTION',
          mentionId: 't1',
          docId: 'gig',
          text: 'Alice, how was the concert? The concert hall looked huge',
          speaker: 'Bob',
          occurredAt: MON,
          recordedAt: MON,
        },
        {
          op: 'RECORD_MENTION',
          mentionId: 't2',
          docId: 'gig',
          text: 'Loud, the concert was great',
          speaker: 'Alice',
          occurredAt: MON,
          recordedAt: MON,
        },
      ],
      MON,
    );
    const asked = async (query: string) => ids(await searchMemory(chat, MEMORY, { validAt: '*', recordedAt: LATER }, { query, k: 2 }));
    expect(await asked('How was the concert for Alice?')).toEqual(['t2', 't1']);
    expect(await asked('How was the concert?')).toEqual(['t1', 't2']); // nobody named: BM25's order
  });

  it('links evidence: event -> facts, fact -> mentions, episode -> events; mentions have none', async () => {
    const result = await searchMemory(story(), MEMORY, { validAt: '*', recordedAt: LATER }, { query: 'Acme', k: 10 });
    const byId = new Map(result.items.map((i) => [i.id, i]));
    expect(byId.get('ev-join')).toMatchObject({
      text: 'Alice joined Acme',
      validFrom: '2024-05-06T00:00:00.000Z',
      validTo: null,
      recordedFrom: MON,
      evidence: [{ kind: 'fact', id: 'alice-acme' }],
    });
    expect(byId.get('alice-acme')).toMatchObject({
      text: 'Alice works at Acme',
      validTo: WED,
      recordedFrom: THU,
      evidence: [{ kind: 'mention', id: 'm-mon' }],
    });
    expect(byId.get('m-mon')).toMatchObject({
      text: '[6 May 2024] Alice: I started at Acme today',
      occurredAt: MON,
      recordedFrom: MON,
      evidence: [],
    });
    expect(byId.get('m-mon')).not.toHaveProperty('validFrom');
    expect(byId.get('ep-onboarding')).toMatchObject({ text: 'Alice onboarding at Acme', evidence: [{ kind: 'event', id: 'ev-join' }] });
  });

  it('renders literal facts by value', async () => {
    const result = await searchMemory(story(), MEMORY, { validAt: WED_NOON, recordedAt: LATER }, { query: 'age 34', k: 10 });
    expect(result.items[0]).toMatchObject({ id: 'alice-age', text: 'Alice age 34' });
  });

  it('caps each kind at k and keeps the total within the budget, in the contract shape', async () => {
    const q = story();
    const result = await searchMemory(q, MEMORY, { validAt: '*', recordedAt: LATER }, { query: 'Alice', k: 1 });
    expect(result.items.map((i) => i.kind).sort()).toEqual(['episode', 'event', 'fact', 'mention']);
    expect(searchResponse.parse(result)).toEqual(result);
    for (let budget = 1; budget <= 40; budget++) {
      const packed = await searchMemory(q, MEMORY, { validAt: '*', recordedAt: LATER }, { query: 'Alice Acme Beta', k: 10, tokenBudget: budget });
      expect(packed.tokens).toBeLessThanOrEqual(budget);
      expect(packed.tokens).toBe(packed.items.reduce((s, i) => s + i.tokens, 0));
      for (const item of packed.items) expect(item.tokens).toBe(cl100k().count(item.text));
    }
  });

  it('answers an unknown memory, or a query without search terms, with nothing', async () => {
    const q = story();
    const cut = { validAt: '*' as const, recordedAt: LATER };
    expect(await searchMemory(q, 'nobody', cut, { query: 'Alice', k: 10 })).toEqual({ cut, items: [], tokens: 0 });
    expect(await searchMemory(q, MEMORY, cut, { query: 'zebra', k: 10 })).toEqual({ cut, items: [], tokens: 0 });
    expect(await searchMemory(q, MEMORY, cut, { query: '?? the of ...', k: 10 })).toEqual({ cut, items: [], tokens: 0 });
  });
});

/** Tom's knee over three sessions, and facts that hold from long before: cut on Monday 17 June 2024. */
function kneeChat(): StoryLog {
  const q = new StoryLog();
  const day = (d: string) => `2024-${d}T18:00:00.000Z`;
  const turn = (mentionId: string, at: string, speaker: string, text: string) =>
    ({ op: 'RECORD_MENTION', mentionId, docId: `session-${at.slice(0, 10)}`, text, speaker, occurredAt: at, recordedAt: at }) as const;
  q.apply(
    [
      { op: 'UPSERT_ENTITY', entityId: 'tom', name: 'Tom', recordedAt: day('05-20') },
      turn('may-1', day('05-20'), 'Tom', 'I play football every Sunday, my knee is fine'),
      turn('may-2', day('05-20'), 'Sam', 'Tom, you said your knee hurt last year'),
      {
        op: 'UPSERT_EDGE',
        factId: 'tom-football',
        src: 'tom',
        rel: 'plays',
        dst: { literal: 'football', datatype: 'string' },
        validFrom: '2020-01-01T00:00:00.000Z',
        evidence: ['may-1'],
        recordedAt: day('05-20'),
      },
      {
        op: 'UPSERT_EDGE',
        factId: 'tom-knee',
        src: 'tom',
        rel: 'has',
        dst: { literal: 'a weak knee', datatype: 'string' },
        validFrom: '2019-06-01T00:00:00.000Z',
        evidence: ['may-2'],
        recordedAt: day('05-20'),
      },
    ],
    day('05-20'),
  );
  q.apply(
    [
      turn('jun-1', day('06-10'), 'Tom', 'The doctor looked at my knee: two weeks of rest, no football'),
      turn('jun-2', day('06-10'), 'Sam', 'Sorry to hear that'),
    ],
    day('06-10'),
  );
  q.apply([turn('jun-shoes', day('06-12'), 'Sam', 'I bought new running shoes')], day('06-12'));
  q.apply([turn('jun-3', day('06-17'), 'Sam', 'Are you coming to the match on Saturday?')], day('06-17'));
  return q;
}

describe.each(IMPLEMENTATIONS)('search ranking over %s', (_, cutOf) => {
  const search = async (q: StoryLog, cut: Cut, input: SearchInput) => searchOver(await cutOf(q, MEMORY, cut), input);
  const JUNE_17 = '2024-06-17T12:00:00.000Z';

  it('"What did Tom say about his knee last week?" puts the turn of 10 June first at every k', async () => {
    const q = kneeChat();
    const query = 'What did Tom say about his knee last week?';
    const full = await search(q, { validAt: '*', recordedAt: JUNE_17 }, { query, k: 10 });
    const mentions = (r: typeof full) => r.items.filter((i) => i.kind === 'mention').map((i) => i.id);
    expect(mentions(full)[0]).toBe('jun-1');
    for (const k of [1, 3, 5]) {
      const cut = await search(q, { validAt: '*', recordedAt: JUNE_17 }, { query, k });
      expect(mentions(cut)).toEqual(mentions(full).slice(0, k));
    }
    expect(full.items.find((i) => i.id === 'jun-1')!.text).toBe('[10 June 2024] Tom: The doctor looked at my knee: two weeks of rest, no football');
  });

  it('a time word favours items whose own time is inside its interval, never one with nothing relevant about it', async () => {
    const q = kneeChat();
    const result = await search(q, { validAt: '*', recordedAt: JUNE_17 }, { query: 'knee last week', k: 10 });
    const ids = result.items.map((i) => i.id);
    expect(ids[0]).toBe('jun-1');
    expect(ids).not.toContain('jun-shoes'); // said that week, but about nothing the query asks
    expect(ids.indexOf('jun-2')).toBeGreaterThan(ids.indexOf('jun-1')); // the reply next to it comes along, below it
  });

  it('a token budget takes the best items that fit, by score, before lower-scored ones', async () => {
    const q = kneeChat();
    const query = 'What did Tom say about his knee last week?';
    const full = await search(q, { validAt: '*', recordedAt: JUNE_17 }, { query, k: 10 });
    const best = full.items[0]!;
    const packed = await search(q, { validAt: '*', recordedAt: JUNE_17 }, { query, k: 10, tokenBudget: best.tokens });
    expect(packed.items.map((i) => i.id)).toEqual([best.id]);
  });

  it('"When did Maya go to Porto?" over the whole timeline finds the trip and its fact, each text able to say when', async () => {
    const q = new StoryLog();
    q.apply(
      PORTO_TRIP.map((c) => toDomainCommand(wireCommand.parse(c), () => 'unused') as CommandInput),
      PORTO_SAID_AT,
    );
    const result = await search(q, { validAt: '*', recordedAt: LATER }, { query: 'When did Maya go to Porto?', k: 10 });
    const byId = new Map(result.items.map((i) => [i.id, i]));
    expect(byId.get('porto-trip')).toMatchObject({ kind: 'event', validFrom: '2023-05-01T00:00:00.000Z', validTo: '2023-05-07T00:00:00.000Z' });
    expect(byId.get('maya-in-porto')).toMatchObject({ kind: 'fact', text: 'Maya stayed in Porto' });
    expect(byId.get('said')!.text).toBe('[8 May 2023] Maya: Back from Porto, what a trip!');
    expect(result.items[0]!.id).not.toBe('maya-lisbon');
  });

  const WORDS = ['knee', 'doctor', 'football', 'porto', 'lisbon', 'trip', 'rest', 'concert', 'work', 'match'];
  const DAYS = Array.from({ length: 30 }, (_, i) => new Date(Date.UTC(2024, 5, 1 + i, 18)).toISOString());
  const phrase = fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 5 }).map((w) => w.join(' '));
  const memoryArb = fc.record({
    turns: fc.array(fc.record({ day: fc.nat(DAYS.length - 1), speaker: fc.constantFrom('Tom', 'Maya', 'Sam'), text: phrase }), {
      minLength: 1,
      maxLength: 25,
    }),
    facts: fc.array(
      fc.record({
        src: fc.constantFrom('tom', 'maya'),
        what: phrase,
        from: fc.nat(DAYS.length - 1),
        length: fc.option(fc.integer({ min: 1, max: 10 })),
        cites: fc.array(fc.nat(24), { maxLength: 2 }),
      }),
      { maxLength: 8 },
    ),
    events: fc.array(
      fc.record({
        summary: phrase,
        from: fc.nat(DAYS.length - 1),
        length: fc.option(fc.integer({ min: 1, max: 5 })),
        facts: fc.array(fc.nat(7), { maxLength: 2 }),
      }),
      { maxLength: 4 },
    ),
  });
  const queryArb = fc
    .tuple(
      phrase,
      fc.constantFrom('', ' last week', ' yesterday', ' on 10 June', ' in June 2024', ' before the trip', ' after the doctor'),
      fc.constantFrom('', 'What did Tom say about '),
    )
    .map(([words, time, lead]) => `${lead}${words}${time}?`);

  function randomMemory(m: typeof memoryArb extends fc.Arbitrary<infer T> ? T : never): StoryLog {
    const q = new StoryLog();
    const at = DAYS[DAYS.length - 1]!;
    const span = (from: number, length: number | null) => ({
      from: DAYS[from]!,
      to: length === null ? null : DAYS[Math.min(from + length, DAYS.length - 1)]!,
    });
    const mentionIds = m.turns.map((_, i) => `t${i}`);
    q.apply(
      [
        { op: 'UPSERT_ENTITY', entityId: 'tom', name: 'Tom', recordedAt: at },
        { op: 'UPSERT_ENTITY', entityId: 'maya', name: 'Maya', recordedAt: at },
        ...m.turns.map((t, i) => ({
          op: 'RECORD_MENTION' as const,
          mentionId: mentionIds[i]!,
          docId: `d${t.day % 3}`,
          speaker: t.speaker,
          text: t.text,
          occurredAt: DAYS[t.day]!,
          recordedAt: at,
        })),
        ...m.facts.map((f, i) => {
          const { from, to } = span(f.from, f.length);
          return {
            op: 'UPSERT_EDGE' as const,
            factId: `f${i}`,
            src: f.src,
            rel: 'said',
            dst: { literal: f.what, datatype: 'string' as const },
            validFrom: from,
            ...(to !== null && to > from ? { validTo: to } : {}),
            evidence: f.cites.filter((c) => c < mentionIds.length).map((c) => mentionIds[c]!),
            recordedAt: at,
          };
        }),
        ...m.events.map((e, i) => {
          const { from, to } = span(e.from, e.length);
          return {
            op: 'UPSERT_EVENT' as const,
            eventId: `e${i}`,
            summary: e.summary,
            includesFacts: e.facts.filter((f) => f < m.facts.length).map((f) => `f${f}`),
            timeSpan: to !== null && to > from ? { from, to } : { from },
            recordedAt: at,
          };
        }),
      ],
      at,
    );
    return q;
  }

  it('k and tokenBudget only cut the ranked list: a kind at k is the first of that kind at any larger k (random memories and queries)', async () => {
    await fc.assert(
      fc.asyncProperty(
        memoryArb,
        queryArb,
        fc.integer({ min: 1, max: 6 }),
        fc.integer({ min: 1, max: 20 }),
        fc.integer({ min: 1, max: 120 }),
        async (m, query, k, more, budget) => {
          const q = randomMemory(m);
          const cut: Cut = { validAt: '*', recordedAt: '2024-07-01T00:00:00.000Z' };
          const small = await search(q, cut, { query, k });
          const large = await search(q, cut, { query, k: k + more });
          const of = (r: typeof small, kind: string) => r.items.filter((i) => i.kind === kind).map((i) => [i.id, i.score]);
          for (const kind of ['event', 'fact', 'mention', 'episode'])
            expect(of(small, kind)).toEqual(of(large, kind).slice(0, of(small, kind).length));
          // A budget only leaves items out: what it keeps comes in the same order with the same scores.
          const all = await search(q, cut, { query, k: 1_000 });
          const ranked = new Map(all.items.map((i, n) => [`${i.kind}:${i.id}`, [n, i.score] as const]));
          const packed = await search(q, cut, { query, k: k + more, tokenBudget: budget });
          const positions = packed.items.map((i) => ranked.get(`${i.kind}:${i.id}`));
          expect(positions.every((p, n) => p !== undefined && p[1] === packed.items[n]!.score)).toBe(true);
          expect(positions.map((p) => p![0])).toEqual([...positions.map((p) => p![0])].sort((a, b) => a - b));
        },
      ),
      { numRuns: 150 },
    );
  });
});

describe('resolveIntent', () => {
  const turn = (id: string, text: string, occurredAt: string): Candidate => ({
    kind: 'mention',
    id,
    text,
    recordedFrom: occurredAt,
    occurredAt,
    evidence: [],
    docId: 'chat',
  });
  const said = [
    turn('m1', 'Melanie: I had a car accident today', MON),
    turn('m2', 'Melanie: my family helped me a lot', MON),
    turn('m3', 'Melanie: back at work', THU),
  ];
  const items = new ListCutItems(MEMORY, { validAt: '*', recordedAt: LATER }, said);

  it('anchors "before/after <words>" at the start of the best-matching timed item, that instant included on both sides', () => {
    const after = resolveIntent({ kind: 'relative', relation: 'after', anchor: 'the accident' }, items)!;
    const before = resolveIntent({ kind: 'relative', relation: 'before', anchor: 'the accident' }, items)!;
    expect(after).toEqual({ from: Date.parse(MON), to: Number.POSITIVE_INFINITY });
    expect(before).toEqual({ from: Number.NEGATIVE_INFINITY, to: Date.parse(MON) + 1 });
    // What was said with the anchor (m2) counts on both sides; what came later only after.
    const interval = (id: string) => itemInterval(said.find((c) => c.id === id)!)!;
    expect(['m1', 'm2', 'm3'].map((id) => overlaps(interval(id), after))).toEqual([true, true, true]);
    expect(['m1', 'm2', 'm3'].map((id) => overlaps(interval(id), before))).toEqual([true, true, false]);
  });

  it('has no interval when no timed item matches the words', () => {
    expect(resolveIntent({ kind: 'relative', relation: 'after', anchor: 'the wedding' }, items)).toBeNull();
  });
});
