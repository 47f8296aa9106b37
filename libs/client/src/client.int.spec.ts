import { hashApiKey, parseApiKeys } from '@memotrace/http-kit';
import { type TestService, startTestService } from '@memotrace/memotrace/testing';
import type { WireCommandInput } from '@memotrace/contracts';
import { MemoTraceClient, MemoTraceError } from './client';

let svc: TestService;
const token = 'mt_client-test';
beforeAll(async () => {
  svc = await startTestService({
    apiKeys: parseApiKeys(JSON.stringify([{ id: 'client-agent', hash: hashApiKey(token), memories: ['c1', 'c2', 'c3'], access: 'write' }])),
  });
});
afterAll(async () => {
  await svc?.stop();
});

const story: WireCommandInput[] = [
  { op: 'UPSERT_ENTITY', commandId: 'e1', entityId: 'alice', name: 'Alice', recordedAt: '2024-05-06T09:00:00Z' },
  { op: 'UPSERT_ENTITY', commandId: 'e2', entityId: 'acme', name: 'Acme', recordedAt: '2024-05-06T09:00:00Z' },
  {
    op: 'UPSERT_EDGE',
    factId: 'alice-acme',
    src: 'alice',
    rel: 'works_at',
    dst: 'acme',
    validFrom: '2024-05-06T00:00:00Z',
    recordedAt: '2024-05-06T09:00:00Z',
  },
  {
    op: 'UPSERT_EVENT',
    eventId: 'ev1',
    summary: 'Alice joined Acme',
    includesFacts: ['alice-acme'],
    timeSpan: { from: '2024-05-06T00:00:00Z' },
    recordedAt: '2024-05-06T09:00:00Z',
  },
];

describe('MemoTraceClient', () => {
  const m = () => new MemoTraceClient({ url: svc.url, apiKey: token }).memory('c1');

  it('writes commands, assigning commandIds client-side, and reads every query', async () => {
    const written = await m().commands(story);
    expect(written.results.map((r) => r.status)).toEqual(['applied', 'applied', 'applied', 'applied']);
    expect(written.results[2]!.commandId).toMatch(/^cli-/);
    const facts = await m().facts({ src: 'alice', validAt: '2024-05-07T00:00:00Z', minPosition: written.position });
    expect(facts.facts.map((f) => f.factId)).toEqual(['alice-acme']);
    expect((await m().facts({ src: 'alice', consistency: 'replay' })).source).toBe('replay');
    expect((await m().history('alice-acme')).versions).toHaveLength(1);
    expect((await m().audit('alice-acme')).events[0]).toMatchObject({ type: 'FactAsserted', actor: 'client-agent' });
    expect((await m().entity('alice')).entityId).toBe('alice');
    expect((await m().entities({ name: 'ALICE', recordedAt: '2024-05-07T00:00:00Z' })).entities.map((e) => e.entityId)).toEqual(['alice']);
    expect((await m().events({ recordedAt: '2024-05-07T00:00:00Z' })).events.map((e) => e.eventId)).toEqual(['ev1']);
    expect((await m().changes('2024-05-01T00:00:00Z', '2024-06-01T00:00:00Z')).changes.length).toBeGreaterThan(0);
    // Pages and a neighbourhood's reads: several src, events about an entity, entities by id, episodes, a page of changes.
    const page = await m().facts({ src: ['acme', 'alice'], validAt: '*', limit: 1 });
    expect([page.facts.map((f) => f.factId), page.next]).toEqual([['alice-acme'], null]);
    expect((await m().events({ entity: 'acme', validAt: '*' })).events.map((e) => e.eventId)).toEqual(['ev1']);
    expect((await m().entities({ ids: ['acme', 'alice'] })).entities.map((e) => e.entityId)).toEqual(['acme', 'alice']);
    expect(await m().episodes({ validAt: '*' })).toMatchObject({ episodes: [], next: null });
    expect((await m().changes('2024-05-01T00:00:00Z', '2024-06-01T00:00:00Z', { limit: 1 })).next).toBeNull();
    // With what a page shows beside them: entities with their facts, facts with names and evidence, changes with names.
    const withFacts = await m().entities({ validAt: '*', limit: 1, include: 'facts' });
    expect([withFacts.entities.map((e) => e.entityId), withFacts.facts?.facts.map((f) => f.factId)]).toEqual([['acme'], []]);
    const named = await m().facts({ src: 'alice', validAt: '*', include: ['entities', 'mentions'] });
    expect([named.entities?.map((e) => e.entityId), named.mentions]).toEqual([['acme', 'alice'], []]);
    const changes = await m().changes('2024-05-01T00:00:00Z', '2024-06-01T00:00:00Z', { include: 'entities' });
    expect(changes.entities?.map((e) => e.entityId)).toEqual(['acme', 'alice']);
    expect(await new MemoTraceClient({ url: svc.url, apiKey: token }).access()).toEqual({
      accessControl: true,
      keyId: 'client-agent',
      access: 'write',
      memories: ['c1', 'c2', 'c3'],
    });
    const search = await m().search({ query: 'Alice Acme' });
    expect(search.items.length).toBeGreaterThan(0);
    // The answer check (a read: the write key may ask it), by claims and by text.
    const checked = await m().check({ claims: [{ src: 'alice', rel: 'works_at', dst: 'acme' }], validAt: '2024-05-07T00:00:00Z' });
    expect(checked.verdicts.map((v) => [v.verdict, v.facts.map((f) => f.factId)])).toEqual([['supported', ['alice-acme']]]);
    const read = await m().check({ text: 'Alice works at Acme.', validAt: '2024-05-01T00:00:00Z', consistency: 'replay' });
    expect([read.source, read.claims, read.verdicts.map((v) => v.verdict)]).toEqual([
      'replay',
      [{ src: 'alice', rel: 'works_at', dst: 'acme' }],
      ['not_yet_valid'],
    ]);
    // SPEC 5.4: the memory's evolution (no policy: nothing cools; too little for an episode or a topic), salience on items.
    expect(await m().consolidate()).toEqual({ cooled: 0, warmed: 0, appended: [], mergeSuggestions: [] });
    expect(await m().topics()).toMatchObject({ cut: { validAt: '*' }, topics: [], next: null });
    expect(search.items.every((i) => i.salience >= 0 && i.salience <= 1)).toBe(true);
    expect((await m().facts({ src: 'alice' })).facts.map((f) => f.tier)).toEqual(['hot']);
  });

  it('records dialog turns (a retry is a duplicate) and lists what was derived from one', async () => {
    const request = {
      sessionId: 'chat-9',
      turns: [{ turnId: 'chat-9:1', speaker: 'Alice', text: 'Hello there', at: '2024-05-06T08:00:00Z' }],
      recordedAt: '2024-05-06T09:00:00Z',
      extraction: 'off' as const,
    };
    const first = await m().turns(request);
    expect(first.results).toEqual([expect.objectContaining({ status: 'applied', ids: { mentionId: 'chat-9:1' } })]);
    expect((await m().turns(request)).results[0]!.status).toBe('duplicate');
    expect(await m().derived('chat-9:1')).toEqual({ mentionId: 'chat-9:1', commands: [], extraction: { status: 'none' } });
    await expect(m().derived('chat-9:404')).rejects.toMatchObject({ status: 404, code: 'UNKNOWN_MENTION' });
  });

  it("queues a re-extraction of a memory's turns, all sessions' or one session's", async () => {
    const all = await m().reextract();
    expect(all).toEqual({ jobs: 1, turns: 1, extractor: expect.stringMatching(/^\S+@\S+$/) });
    expect(await m().reextract({ sessionId: 'chat-9' })).toEqual(all);
    expect(await m().reextract({ sessionId: 'no-such-session' })).toEqual({ ...all, jobs: 0, turns: 0 });
    await expect(new MemoTraceClient({ url: svc.url, apiKey: token }).memory('c3').reextract()).rejects.toMatchObject({
      status: 404,
      code: 'UNKNOWN_MEMORY',
    });
  });

  it("reads a document's mentions a page at a time, all of them in one cut, and one mention", async () => {
    const turn = (n: number, recordedAt?: string): WireCommandInput => ({
      op: 'RECORD_MENTION',
      mentionId: `chat-1:${n}`,
      docId: 'chat-1',
      speaker: n % 2 === 1 ? 'Alice' : 'agent',
      text: `turn ${n}`,
      occurredAt: '2024-05-06T08:00:00Z',
      ...(recordedAt === undefined ? {} : { recordedAt }),
    });
    const written = await m().commands([10, 2, 1, 9, 3].map((n) => turn(n, '2024-05-06T09:00:00Z')));
    const first = await m().mentions('chat-1', { limit: 2, minPosition: written.position });
    expect(first.mentions.map((x) => x.mentionId)).toEqual(['chat-1:1', 'chat-1:2']);
    expect(first.next).toBe('chat-1:2');
    const second = await m().mentions('chat-1', { limit: 2, after: first.next!, recordedAt: first.cut.recordedAt, consistency: 'replay' });
    expect([second.source, second.mentions.map((x) => x.mentionId)]).toEqual(['replay', ['chat-1:3', 'chat-1:9']]);

    // A turn recorded (by the server clock) after a walk's first page is not in the walk's later pages: they keep its cut.
    const walk = m().allMentions('chat-1', { limit: 2 });
    const walked = [(await walk.next()).value!.mentionId];
    await new Promise((resolve) => setTimeout(resolve, 5));
    await m().commands([turn(4)]);
    for await (const mention of walk) walked.push(mention.mentionId);
    expect(walked).toEqual(['chat-1:1', 'chat-1:2', 'chat-1:3', 'chat-1:9', 'chat-1:10']);
    const now: string[] = [];
    for await (const mention of m().allMentions('chat-1', { limit: 4 })) now.push(mention.mentionId);
    expect(now).toEqual(['chat-1:1', 'chat-1:2', 'chat-1:3', 'chat-1:4', 'chat-1:9', 'chat-1:10']);

    expect(await m().mention('chat-1:10')).toMatchObject({ mentionId: 'chat-1:10', docId: 'chat-1', speaker: 'agent', text: 'turn 10' });
    const unknown = await m()
      .mention('chat-1:99')
      .catch((e: unknown) => e);
    expect(unknown).toMatchObject({ status: 404, code: 'UNKNOWN_MENTION' });
  });

  it('retries a batch with the same commandIds: the retry is a duplicate, nothing is written twice', async () => {
    let calls = 0;
    const flaky: typeof fetch = async (input, init) => {
      calls++;
      const response = await fetch(input, init);
      if (calls === 1) throw new TypeError('fetch failed: connection reset after send'); // the first outcome is unknown
      return response;
    };
    const memory = new MemoTraceClient({ url: svc.url, apiKey: token, fetch: flaky, retryDelayMs: 1 }).memory('c1');
    const response = await memory.commands([{ op: 'UPSERT_ENTITY', entityId: 'bob', name: 'Bob' }]);
    expect(calls).toBe(2);
    expect(response.results[0]!.status).toBe('duplicate');
    const log = (await m().export()).trim().split('\n');
    expect(log.filter((line) => line.includes('"bob"'))).toHaveLength(1);
  });

  it('exports and imports a memory', async () => {
    const jsonl = await m().export();
    const target = new MemoTraceClient({ url: svc.url, apiKey: token }).memory('c2');
    const imported = await target.import(jsonl);
    expect(imported.imported).toBe(jsonl.trim().split('\n').length);
    expect(await target.export()).toBe(jsonl);
  });

  it('lists the memories its key may read, after they were written (SPEC 5.0)', async () => {
    const client = new MemoTraceClient({ url: svc.url, apiKey: token });
    const { memories } = await client.listMemories();
    // c1 and c2 were written by the tests above; c3, in the key's scope too, has no command: not a memory.
    expect(memories.map((memory) => memory.memoryId)).toEqual(['c1', 'c2']);
    const c1 = memories[0]!;
    expect(c1.latestRecordedAt).toBe(JSON.parse((await m().export()).trim().split('\n').pop()!).recordedAt);
    expect((await m().facts({ minPosition: c1.position })).facts.length).toBeGreaterThan(0);
  });

  it('throws typed errors', async () => {
    const error = await m()
      .history('no-such-fact')
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MemoTraceError);
    expect(error).toMatchObject({ status: 404, code: 'UNKNOWN_FACT' });
    const unknownMemory = await new MemoTraceClient({ url: svc.url, apiKey: token })
      .memory('c3')
      .facts()
      .catch((e: unknown) => e);
    expect(unknownMemory).toMatchObject({ status: 404, code: 'UNKNOWN_MEMORY' });
    const invalid = await m()
      .commands([{ op: 'NOPE' } as never])
      .catch((e: MemoTraceError) => e);
    expect(invalid).toMatchObject({
      status: 400,
      code: 'INVALID_REQUEST',
      details: [expect.objectContaining({ path: expect.stringMatching(/^commands\.0/) })],
    });
    const forbidden = await new MemoTraceClient({ url: svc.url, apiKey: token })
      .memory('other')
      .facts()
      .catch((e: MemoTraceError) => e);
    expect(forbidden).toMatchObject({ status: 403, code: 'FORBIDDEN' });
    const unauthorized = await new MemoTraceClient({ url: svc.url, apiKey: 'wrong' })
      .memory('c1')
      .facts()
      .catch((e: MemoTraceError) => e);
    expect(unauthorized).toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
    const network = await new MemoTraceClient({ url: 'http://127.0.0.1:1', retries: 2, retryDelayMs: 1 })
      .memory('c1')
      .facts()
      .catch((e: MemoTraceError) => e);
    expect(network).toMatchObject({ status: 0, code: 'NETWORK' });
  });
});
