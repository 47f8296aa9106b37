import { searchResponse } from '@memotrace/contracts';
import { type Command, type Cut, type Instant, type MemoryRecord, decideBatch, fold } from '@memotrace/domain';
import { cl100k } from './cl100k';
import { SearchCorpora } from './corpora';
import type { CutItems } from './cut-items';
import type { Candidate } from './items';
import { ListCutItems, referenceCut } from './reference-cut';
import { type SearchInput, resolveIntent, searchMemory as searchOver } from './search';
import { itemInterval, overlaps } from './temporal-intent';
import { LogSearchFeed } from './testing/log-feed';
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
    expect(ids(result)).toEqual(['m-mon', 'ep-onboarding', 'ev-join', 'alice-acme', 'alice-age']);
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
    expect(byId.get('m-mon')).toMatchObject({ text: 'Alice: I started at Acme today', occurredAt: MON, recordedFrom: MON, evidence: [] });
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
