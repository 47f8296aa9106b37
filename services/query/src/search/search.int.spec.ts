import { searchResponse } from '@memotrace/contracts';
import fc from 'fast-check';
import { MON, MONDAY, THU, WED, WED_NOON } from '../../../memotrace/src/testing/alice-joins-acme';
import { type TestService, startTestService } from '../../../memotrace/src/testing/test-service';
import { PORTO_TRIP } from './testing/porto-trip';

/** SPEC §4 search through HTTP, on the whole service (projection read models). */
const M = 'search-story';

describe('POST /v1/memories/{memoryId}/search', () => {
  let t: TestService;

  const search = async (body: unknown, memoryId = M) => {
    const response = await t.post(`/v1/memories/${memoryId}/search`, body);
    if (response.status === 200) expect(searchResponse.safeParse(response.body).error).toBeUndefined();
    return response;
  };
  const ids = (body: { items: { id: string }[] }) => body.items.map((i) => i.id);
  /** SPEC §4: "ranked items": scores never increase down the list. */
  const expectRanked = (body: { items: { score: number }[] }) =>
    body.items.forEach((item, i) => i > 0 && expect(item.score).toBeLessThanOrEqual(body.items[i - 1]!.score));

  beforeAll(async () => {
    // BM25 only here, so exact answers do not depend on how far the search-index projector got (hybrid: hybrid-search.int.spec.ts).
    t = await startTestService();
    const monday = await t.commands(M, [...MONDAY]);
    expect(monday.status).toBe(200);
    // Thursday: what the memory learns later matches the queries below best of all.
    const thursday = await t.commands(M, [
      {
        op: 'RECORD_MENTION',
        mentionId: 'm-thu',
        docId: 'chat-2',
        text: 'I moved to Beta yesterday. Beta! Beta!',
        speaker: 'Alice',
        occurredAt: THU,
        recordedAt: THU,
      },
      { op: 'UPSERT_EDGE', factId: 'alice-beta', src: 'alice', rel: 'works_at', dst: 'beta', validFrom: WED, evidence: ['m-thu'], recordedAt: THU },
      {
        op: 'UPSERT_EVENT',
        eventId: 'ev-move',
        summary: 'Alice moved to Beta',
        includesFacts: ['alice-beta'],
        timeSpan: { from: WED },
        recordedAt: THU,
      },
      { op: 'UPSERT_EPISODE', episodeId: 'ep-move', title: 'The move to Beta', window: { from: WED }, events: ['ev-move'], recordedAt: THU },
    ]);
    expect(thursday.status).toBe(200);
  });
  afterAll(() => t.stop());

  it('never returns what was recorded after recordedAt, even when it matches best', async () => {
    for (const query of ['Beta', 'Alice moved to Beta', 'I moved to Beta yesterday', 'Alice works at Beta', 'The move to Beta']) {
      const { status, body } = await search({ query, validAt: '*', recordedAt: WED_NOON });
      expect(status).toBe(200);
      expect(body.items.every((i: { recordedFrom: string }) => i.recordedFrom <= WED_NOON)).toBe(true);
      for (const late of ['m-thu', 'alice-beta', 'ev-move', 'ep-move']) expect(ids(body)).not.toContain(late);
    }
    // At Thursday's record time the same query finds all of it.
    const { body } = await search({ query: 'Beta', validAt: '*', recordedAt: THU });
    // Graph expansion: alice-acme reached from alice-beta through the entity alice; ev-join one hop
    // further, through alice-acme (included by). m-mon, the turn alice-acme cites, is not lifted by it.
    expect(ids(body).sort()).toEqual(['alice-acme', 'alice-beta', 'ep-move', 'ev-join', 'ev-move', 'm-thu']);
    expectRanked(body);
  });

  it('As-World and As-Recorded at Wednesday noon differ: Beta by today’s knowledge, Acme as believed then', async () => {
    const world = await search({ query: 'Alice works at', validAt: WED_NOON });
    expect(world.status).toBe(200);
    expect(world.body.items.filter((i: { kind: string }) => i.kind === 'fact')).toEqual([
      expect.objectContaining({
        kind: 'fact',
        id: 'alice-beta',
        text: 'Alice works at Beta',
        validFrom: WED,
        validTo: null,
        recordedFrom: THU,
        evidence: [{ kind: 'mention', id: 'm-thu' }],
      }),
    ]);
    const recorded = await search({ query: 'Alice works at', validAt: WED_NOON, recordedAt: WED_NOON });
    expect(recorded.body.cut).toEqual({ validAt: WED_NOON, recordedAt: WED_NOON });
    expect(recorded.body.items.filter((i: { kind: string }) => i.kind === 'fact')).toEqual([
      expect.objectContaining({
        id: 'alice-acme',
        text: 'Alice works at Acme',
        validTo: null,
        recordedFrom: MON,
        evidence: [{ kind: 'mention', id: 'm-mon' }],
      }),
    ]);
  });

  it('returns an auditable subgraph of ranked items, with evidence links and time fields', async () => {
    const { body } = await search({ query: 'Acme', validAt: '*', recordedAt: WED_NOON });
    expect(body.items).toHaveLength(4);
    expectRanked(body);
    expect(body.items).toEqual(
      expect.arrayContaining([
        {
          kind: 'event',
          id: 'ev-join',
          text: 'Alice joined Acme',
          score: expect.any(Number),
          tokens: expect.any(Number),
          recordedFrom: MON,
          validFrom: '2024-05-06T00:00:00.000Z',
          validTo: null,
          evidence: [{ kind: 'fact', id: 'alice-acme' }],
          salience: expect.any(Number),
          tier: 'hot',
        },
        {
          kind: 'fact',
          id: 'alice-acme',
          text: 'Alice works at Acme',
          score: expect.any(Number),
          tokens: expect.any(Number),
          recordedFrom: MON,
          validFrom: '2024-05-06T00:00:00.000Z',
          validTo: null,
          evidence: [{ kind: 'mention', id: 'm-mon' }],
          salience: expect.any(Number),
          tier: 'hot',
        },
        {
          kind: 'mention',
          id: 'm-mon',
          text: '[6 May 2024] Alice: I started at Acme today',
          score: expect.any(Number),
          tokens: expect.any(Number),
          recordedFrom: MON,
          occurredAt: MON,
          evidence: [],
          salience: expect.any(Number),
          tier: 'hot',
        },
        {
          kind: 'episode',
          id: 'ep-onboarding',
          text: 'Alice onboarding at Acme',
          score: expect.any(Number),
          tokens: expect.any(Number),
          recordedFrom: MON,
          validFrom: '2024-05-06T00:00:00.000Z',
          validTo: null,
          evidence: [{ kind: 'event', id: 'ev-join' }],
          salience: expect.any(Number),
        },
      ]),
    );
    expect(body.items.every((i: { score: number }) => i.score > 0)).toBe(true);
    expect(body.tokens).toBe(body.items.reduce((s: number, i: { tokens: number }) => s + i.tokens, 0));
    expect(body.items.find((i: { id: string }) => i.id === 'alice-acme').tokens).toBe(5); // "Alice works at Acme" in cl100k_base
  });

  it('defaults recordedAt to the request time and validAt to "*" (SPEC 5.0)', async () => {
    const before = new Date().toISOString();
    const { body } = await search({ query: 'Beta' });
    expect(body.cut.validAt).toBe('*');
    expect(body.cut.recordedAt >= before).toBe(true);
    // The past is searched too: what Alice did before the move comes along, below the direct hits.
    expect(ids(body).slice(0, 4).sort()).toEqual(['alice-beta', 'ep-move', 'ev-move', 'm-thu']);
    expect(ids(body).slice(4).sort()).toEqual(['alice-acme', 'ev-join']);
    expectRanked(body);
  });

  it('"When did Maya go to Porto?" without a cut finds the trip and its fact, though both ended long ago', async () => {
    const memory = 'search-porto';
    const written = await t.commands(memory, [...PORTO_TRIP]);
    expect(written.status).toBe(200);
    const { status, body } = await search({ query: 'When did Maya go to Porto?', minPosition: written.body.position }, memory);
    expect(status).toBe(200);
    const byId = new Map(body.items.map((i: { id: string }) => [i.id, i]));
    expect(byId.get('porto-trip')).toMatchObject({ kind: 'event', text: 'Maya went to Porto', validFrom: '2023-05-01T00:00:00.000Z' });
    expect(byId.get('maya-in-porto')).toMatchObject({ kind: 'fact', text: 'Maya stayed in Porto', validTo: '2023-05-07T00:00:00.000Z' });
    expect(byId.get('said')).toMatchObject({ kind: 'mention', text: '[8 May 2023] Maya: Back from Porto, what a trip!' });
    expectRanked(body);
  });

  it('does not filter mentions by valid time', async () => {
    const { body } = await search({ query: 'Acme Beta', validAt: '2020-01-01T00:00:00Z' });
    expect(ids(body)).toEqual(['m-thu', 'm-mon']);
  });

  it('never exceeds a random token budget, and totals the items (random budgets)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 60 }),
        fc.constantFrom('Alice', 'Acme Beta', 'moved started', 'Alice Acme Beta onboarding'),
        fc.constantFrom('*', WED_NOON, THU),
        async (tokenBudget, query, validAt) => {
          const { status, body } = await search({ query, validAt, tokenBudget });
          expect(status).toBe(200);
          expect(body.tokens).toBeLessThanOrEqual(tokenBudget);
          expect(body.tokens).toBe(body.items.reduce((s: number, i: { tokens: number }) => s + i.tokens, 0));
        },
      ),
      { numRuns: 60 },
    );
    const unbounded = await search({ query: 'Alice', validAt: '*' });
    const full = unbounded.body.tokens;
    expect((await search({ query: 'Alice', validAt: '*', tokenBudget: full })).body).toEqual({ ...unbounded.body, cut: expect.any(Object) });
    expect((await search({ query: 'Alice', validAt: '*', tokenBudget: full - 1 })).body.tokens).toBeLessThan(full);
  });

  it('caps the items of each kind at k (default 10)', async () => {
    const memory = 'search-k';
    const commands: unknown[] = [
      { op: 'UPSERT_ENTITY', entityId: 'p', name: 'Pia' },
      ...Array.from({ length: 14 }, (_, i) => ({ op: 'UPSERT_ENTITY', entityId: `fruit-${i}`, name: `apple ${i}` })),
      ...Array.from({ length: 14 }, (_, i) => ({ op: 'UPSERT_EDGE', factId: `likes-${i}`, src: 'p', rel: 'likes', dst: `fruit-${i}` })),
      ...Array.from({ length: 14 }, (_, i) => ({ op: 'RECORD_MENTION', mentionId: `m-${i}`, docId: 'd', text: `apple number ${i}` })),
    ];
    expect((await t.commands(memory, commands)).status).toBe(200);
    const count = (body: { items: { kind: string }[] }, kind: string) => body.items.filter((i) => i.kind === kind).length;
    const byDefault = (await search({ query: 'apple' }, memory)).body;
    expect([count(byDefault, 'fact'), count(byDefault, 'mention')]).toEqual([10, 10]);
    const three = (await search({ query: 'apple', k: 3 }, memory)).body;
    expect([count(three, 'fact'), count(three, 'mention')]).toEqual([3, 3]);
    const all = (await search({ query: 'apple', k: 1000 }, memory)).body;
    expect([count(all, 'fact'), count(all, 'mention')]).toEqual([14, 14]);
    expect((await search({ query: 'apple', k: 0 }, memory)).body).toMatchObject({ items: [], tokens: 0 });
    expect((await search({ query: 'apple', tokenBudget: 0 }, memory)).body).toMatchObject({ items: [], tokens: 0 });
  });

  it('answers an unknown memory with 404 UNKNOWN_MEMORY (SPEC §5.0), and a query matching nothing with no items', async () => {
    const unknown = await search({ query: 'Alice' }, 'no-such-memory');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('UNKNOWN_MEMORY');
    expect((await search({ query: 'zebra quantum' })).body).toMatchObject({ items: [], tokens: 0 });
  });

  it.each([
    ['no query', {}],
    ['a blank query', { query: '   ' }],
    ['a non-string query', { query: 42 }],
    ['k = 1001', { query: 'a', k: 1001 }],
    ['a fractional k', { query: 'a', k: 1.5 }],
    ['a fractional budget', { query: 'a', tokenBudget: 2.5 }],
    ['a negative budget', { query: 'a', tokenBudget: -5 }],
    ['an instant without offset', { query: 'a', recordedAt: '2024-05-06T09:00:00' }],
    ['an instant finer than ms', { query: 'a', validAt: '2024-05-06T09:00:00.0001Z' }],
    ['recordedAt "*"', { query: 'a', recordedAt: '*' }],
    ['an unknown field', { query: 'a', limit: 3 }],
    ['an array body', [{ query: 'a' }]],
    ['a null body', null],
  ])('rejects %s with 400 INVALID_REQUEST', async (_what, body) => {
    const { status, body: error } = await search(body);
    expect(status).toBe(400);
    expect(error.error.code).toBe('INVALID_REQUEST');
  });

  it('rejects a malformed JSON body and a bad memory id with 400', async () => {
    expect((await t.post(`/v1/memories/${M}/search`, '{"query": ')).status).toBe(400);
    const bad = await search({ query: 'a' }, 'Bad_Memory!');
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('INVALID_REQUEST');
  });
});
