import { deriveEntityId } from '@memotrace/domain';
import type { Derived, Extractor, ExtractionInput } from '@memotrace/extraction';
import { conceptEmbeddings } from '@memotrace/search-index';
import { type TestService, startTestService } from './testing/test-service';

/**
 * `POST /v1/memories/{memoryId}/turns` (SPEC §5.1) through the whole service. The extractor here is
 * a small one written for the test (the real extractors have their own tests): it states where a
 * speaker lives when a turn says "I live in X", plus one guess below the gate.
 */
const livesIn: Extractor = {
  name: 'phrases',
  version: '1.0.0',
  async extract({ memoryId, turns }: ExtractionInput): Promise<Derived[]> {
    const derived: Derived[] = [];
    for (const turn of turns) {
      const place = /I live in (\w+)/.exec(turn.text)?.[1];
      if (place === undefined) continue;
      const src = deriveEntityId(memoryId, turn.speaker);
      derived.push(
        { command: { op: 'UPSERT_ENTITY', name: turn.speaker, types: ['person'] }, confidence: 0.9, turns: [turn.mentionId], why: 'speaker' },
        { command: { op: 'DEFINE_RELATION', rel: 'lives_in', cardinality: 'one' }, confidence: 0.9, turns: [turn.mentionId] },
        {
          command: { op: 'UPSERT_EDGE', src, rel: 'lives_in', dst: { literal: place, datatype: 'string' }, validFrom: turn.at },
          confidence: 0.8,
          turns: [turn.mentionId],
          why: 'first person "I live in"',
        },
        {
          command: { op: 'UPSERT_EDGE', src, rel: 'likes', dst: { literal: place, datatype: 'string' } },
          confidence: 0.2,
          turns: [turn.mentionId],
          why: 'a guess',
        },
      );
    }
    return derived;
  },
};

const failing: Extractor = {
  name: 'broken',
  version: '0.1.0',
  extract: () => Promise.reject(new Error('model unavailable')),
};

const slow: Extractor = {
  name: 'slow',
  version: '0.1.0',
  extract: (_input, signal) => new Promise((resolve) => signal?.addEventListener('abort', () => resolve([]))),
};

const AT = '2024-05-11T18:30:00Z';
const RECORDED = '2024-05-12T00:00:00.000Z';
const dialog = (sessionId: string) => ({
  sessionId,
  recordedAt: RECORDED,
  turns: [
    { turnId: `${sessionId}:1`, speaker: 'Alice', text: 'I live in Lyon these days.', at: AT },
    { turnId: `${sessionId}:2`, speaker: 'Bob', text: 'Nice, how is it?', at: '2024-05-11T18:31:00Z' },
  ],
});

/** A job hunt told over twelve turns: the chat of the statements test. */
const CHAT: [string, string, string][] = [
  ['Dana', "Hi Sam! Big decision: I've decided to start looking for work to pay for my shopping addiction.", '2024-03-01T09:00:00Z'],
  ['Sam', 'Oh wow, good for you! What kind of work?', '2024-03-01T09:01:00Z'],
  ['Dana', "I'm looking for a job in a call center or data entry. I'm not working right now.", '2024-03-01T09:02:00Z'],
  ['Sam', 'Do you have kids?', '2024-03-01T09:03:00Z'],
  ['Dana', 'I have school age children, so I need something with flexible hours.', '2024-03-01T09:04:00Z'],
  ['Sam', 'Day care could help with that.', '2024-03-01T09:05:00Z'],
  ['Dana', 'Day care is too expensive. My brother helps out sometimes.', '2024-03-01T09:06:00Z'],
  ['Sam', 'Good luck with the search!', '2024-03-01T09:07:00Z'],
  ['Dana', 'Thanks! I applied to three places yesterday.', '2024-03-05T18:00:00Z'],
  ['Sam', 'Fingers crossed!', '2024-03-05T18:01:00Z'],
  ['Dana', 'I just got an email saying I got the Remote Data entry job!', '2024-03-08T12:00:00Z'],
  ['Sam', 'Congratulations, that is great news!', '2024-03-08T12:01:00Z'],
];

describe('turns', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService({ extractionGate: 0.5 }, { extractor: livesIn });
  }, 60_000);
  afterAll(async () => svc?.stop());

  it('records the turns and what is derived from them as one batch at one record time (sync)', async () => {
    const { status, body } = await svc.post('/v1/memories/chat/turns', dialog('s1'));
    expect(status).toBe(200);
    expect(body.results).toEqual([
      expect.objectContaining({ status: 'applied', recordedAt: RECORDED, ids: { mentionId: 's1:1' } }),
      expect.objectContaining({ status: 'applied', recordedAt: RECORDED, ids: { mentionId: 's1:2' } }),
    ]);
    // The guess below the gate is not appended.
    expect(body.derived.map((d: { op: string; status: string; turns: string[] }) => [d.op, d.status, d.turns])).toEqual([
      ['UPSERT_ENTITY', 'applied', ['s1:1']],
      ['DEFINE_RELATION', 'applied', ['s1:1']],
      ['UPSERT_EDGE', 'applied', ['s1:1']],
    ]);
    expect(body.position).toBe(5);
    const facts = (await svc.get(`/v1/memories/chat/facts?validAt=*&minPosition=${body.position}`)).body.facts;
    expect(facts).toEqual([
      expect.objectContaining({
        rel: 'lives_in',
        dst: { literal: 'Lyon', datatype: 'string' },
        evidence: ['s1:1'],
        confidence: 0.8,
        recordedFrom: RECORDED,
      }),
    ]);
    const audit = (await svc.get(`/v1/memories/chat/facts/${facts[0].factId}/audit`)).body.events;
    expect(audit[0]).toMatchObject({ actor: 'extractor:phrases@1.0.0', reason: 'first person "I live in" (confidence 0.80)' });
  });

  it('lists what was derived from a turn, and 404 for a mention the memory never recorded', async () => {
    const derived = await svc.get('/v1/memories/chat/mentions/s1:1/derived');
    expect(derived.status).toBe(200);
    expect(derived.body.commands.map((c: { op: string }) => c.op)).toEqual(['UPSERT_ENTITY', 'DEFINE_RELATION', 'UPSERT_EDGE']);
    expect(
      derived.body.commands.every(
        (c: { derivedFrom: string[]; actor: string }) => c.derivedFrom[0] === 's1:1' && c.actor === 'extractor:phrases@1.0.0',
      ),
    ).toBe(true);
    expect((await svc.get('/v1/memories/chat/mentions/s1:2/derived')).body.commands).toEqual([]);
    expect((await svc.get('/v1/memories/chat/mentions/nope/derived')).body).toMatchObject({ error: { code: 'UNKNOWN_MENTION' } });
  });

  it('answers a resent turn as a duplicate and derives nothing new', async () => {
    const { body } = await svc.post('/v1/memories/chat/turns', dialog('s1'));
    expect(body.results.map((r: { status: string }) => r.status)).toEqual(['duplicate', 'duplicate']);
    expect(body.derived).toEqual([]);
    expect(body.position).toBe(5);
  });

  it('cites every turn that states a fact again, from the earlier validFrom on, in later batches and within one', async () => {
    const later = { ...dialog('s3'), recordedAt: '2024-06-01T00:00:00.000Z' };
    later.turns = [
      { turnId: 's3:1', speaker: 'Alice', text: 'I live in Lyon, still.', at: '2024-05-31T09:00:00Z' },
      { turnId: 's3:2', speaker: 'Alice', text: 'Yes, I live in Lyon!', at: '2024-05-31T09:01:00Z' },
    ];
    const { body } = await svc.post('/v1/memories/chat/turns', later);
    expect(body.derived.filter((d: { op: string }) => d.op === 'UPSERT_EDGE').map((d: { status: string }) => d.status)).toEqual([
      'applied',
      'applied',
    ]);
    const facts = (await svc.get(`/v1/memories/chat/facts?validAt=*&minPosition=${body.position}`)).body.facts;
    expect(facts).toEqual([
      expect.objectContaining({ rel: 'lives_in', evidence: ['s1:1', 's3:1', 's3:2'], validFrom: '2024-05-11T18:30:00.000Z', confidence: 0.8 }),
    ]);
  });

  it('records turns only with extraction off', async () => {
    const { body } = await svc.post('/v1/memories/quiet/turns', { ...dialog('s2'), extraction: 'off' });
    expect(body.results).toHaveLength(2);
    expect(body.derived).toEqual([]);
    expect(body.position).toBe(2);
  });

  it('exports the derived commands with their turns: an import lists the same', async () => {
    const exported = (await svc.get('/v1/memories/chat/export')).text;
    const imported = await fetch(`${svc.url}/v1/memories/chat-copy/import`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-ndjson' },
      body: exported,
    });
    expect(imported.status).toBe(200);
    const copy = (await svc.get('/v1/memories/chat-copy/mentions/s1:1/derived')).body.commands;
    const original = (await svc.get('/v1/memories/chat/mentions/s1:1/derived')).body.commands;
    expect(copy).toEqual(original);
  });

  it.each([
    ['a turn without speaker', { sessionId: 's', turns: [{ text: 'hi', at: AT }] }, 'turns.0.speaker'],
    ['a turn without text', { sessionId: 's', turns: [{ speaker: 'A', at: AT }] }, 'turns.0.text'],
    ['an at without offset', { sessionId: 's', turns: [{ speaker: 'A', text: 'hi', at: '2024-05-11T18:30:00' }] }, 'turns.0.at'],
    ['more than 1,000 turns', { sessionId: 's', turns: Array.from({ length: 1001 }, (_, i) => ({ speaker: 'A', text: `t${i}`, at: AT })) }, 'turns'],
    ['a text over 64 KiB', { sessionId: 's', turns: [{ speaker: 'A', text: 'x'.repeat(64 * 1024 + 1), at: AT }] }, 'turns.0.text'],
    ['an unknown extraction mode', { sessionId: 's', turns: [{ speaker: 'A', text: 'hi', at: AT }], extraction: 'later' }, 'extraction'],
  ])('refuses %s with 400 and per-field details, writing nothing', async (_, body, path) => {
    const answer = await svc.post('/v1/memories/refused/turns', body);
    expect(answer.status).toBe(400);
    expect(answer.body.error.details.map((d: { path: string }) => d.path)).toContain(path);
    expect((await svc.get('/v1/memories/refused/export')).status).toBe(404);
  });
});

describe("turns with the memory's own gate", () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService({ extractionGate: 0.5 }, { extractor: livesIn });
  }, 60_000);
  afterAll(async () => svc?.stop());

  const derivedOps = async (memoryId: string, sessionId: string) =>
    (await svc.post(`/v1/memories/${memoryId}/turns`, dialog(sessionId))).body.derived.map((d: { op: string }) => d.op);

  it('appends what reaches the gate the memory set (a logged command), else the process default; GET …/extraction reads it', async () => {
    expect((await svc.get('/v1/memories/gated/extraction')).body).toMatchObject({ error: { code: 'UNKNOWN_MEMORY' } });
    expect(await derivedOps('gated', 'g1')).toEqual(['UPSERT_ENTITY', 'DEFINE_RELATION', 'UPSERT_EDGE']);
    expect((await svc.get('/v1/memories/gated/extraction')).body).toEqual({
      memoryId: 'gated',
      extractor: 'phrases@1.0.0',
      gate: 0.5,
      memoryGate: null,
      defaultGate: 0.5,
    });

    const set = await svc.post('/v1/memories/gated/commands', { commands: [{ op: 'SET_EXTRACTION_GATE', gate: 0.1, recordedAt: RECORDED }] });
    expect(set.body.results[0]).toMatchObject({ status: 'applied' });
    expect((await svc.get('/v1/memories/gated/extraction')).body).toMatchObject({ gate: 0.1, memoryGate: 0.1, defaultGate: 0.5 });
    // The guess at 0.2 now reaches the gate (the relation is declared already: not again).
    expect(await derivedOps('gated', 'g2')).toEqual(['UPSERT_ENTITY', 'UPSERT_EDGE', 'UPSERT_EDGE']);

    await svc.post('/v1/memories/gated/commands', { commands: [{ op: 'SET_EXTRACTION_GATE', gate: 0.95, recordedAt: RECORDED }] });
    expect(await derivedOps('gated', 'g3')).toEqual([]);
    await svc.post('/v1/memories/gated/commands', { commands: [{ op: 'SET_EXTRACTION_GATE', gate: null, recordedAt: RECORDED }] });
    expect((await svc.get('/v1/memories/gated/extraction')).body).toMatchObject({ gate: 0.5, memoryGate: null });
    expect(await derivedOps('gated', 'g4')).toEqual(['UPSERT_ENTITY', 'UPSERT_EDGE']);
  });

  it('refuses a gate outside [0, 1] with 400, writing nothing', async () => {
    const refused = await svc.post('/v1/memories/gated/commands', { commands: [{ op: 'SET_EXTRACTION_GATE', gate: 2 }] });
    expect(refused.status).toBe(400);
    expect(refused.body.error.details.map((d: { path: string }) => d.path)).toEqual(['commands.0.gate']);
    expect((await svc.get('/v1/memories/gated/extraction')).body).toMatchObject({ memoryGate: null });
  });

  it('carries the gate through export and import', async () => {
    await svc.post('/v1/memories/gated/commands', { commands: [{ op: 'SET_EXTRACTION_GATE', gate: 0.8, recordedAt: RECORDED }] });
    const exported = (await svc.get('/v1/memories/gated/export')).text;
    expect(exported).toContain('"op":"SET_EXTRACTION_GATE"');
    const imported = await fetch(`${svc.url}/v1/memories/gated-copy/import`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-ndjson' },
      body: exported,
    });
    expect(imported.status).toBe(200);
    expect((await svc.get('/v1/memories/gated-copy/extraction')).body).toMatchObject({ gate: 0.8, memoryGate: 0.8 });
  });
});

describe('turns with an extractor that fails', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService({ extractionTimeoutMs: 200 }, { extractor: failing });
  }, 60_000);
  afterAll(async () => svc?.stop());

  it('answers 502 EXTRACTION_FAILED in sync mode and writes nothing; off keeps the turns', async () => {
    const failed = await svc.post('/v1/memories/fragile/turns', dialog('s1'));
    expect(failed.status).toBe(502);
    expect(failed.body.error).toMatchObject({ code: 'EXTRACTION_FAILED', message: expect.stringMatching(/model unavailable.*nothing was written/) });
    expect((await svc.get('/v1/memories/fragile/export')).status).toBe(404);
    const kept = await svc.post('/v1/memories/fragile/turns', { ...dialog('s1'), extraction: 'off' });
    expect(kept.status).toBe(200);
    expect(kept.body.position).toBe(2);
  });
});

describe('turns with an extractor that does not answer in time', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService({ extractionTimeoutMs: 200 }, { extractor: slow });
  }, 60_000);
  afterAll(async () => svc?.stop());

  it('answers 502 EXTRACTION_FAILED after the timeout and writes nothing', async () => {
    const failed = await svc.post('/v1/memories/late/turns', dialog('s1'));
    expect(failed.status).toBe(502);
    expect(failed.body.error.message).toMatch(/timed out after 200 ms/);
    expect((await svc.get('/v1/memories/late/export')).status).toBe(404);
  });
});

describe('turns with the default extractor (no LLM)', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService();
  }, 60_000);
  afterAll(async () => svc?.stop());

  it('derives where a speaker lives and works, and a move supersedes through the DSL', async () => {
    const first = await svc.post('/v1/memories/moves/turns', {
      sessionId: 'a',
      turns: [
        { turnId: 'a:1', speaker: 'Alice', text: 'I moved to Porto last month and I started working at Acme Corp.', at: '2024-05-11T18:30:00Z' },
        { turnId: 'a:2', speaker: 'Bob', text: 'Cool, sounds great!', at: '2024-05-11T18:31:00Z' },
      ],
    });
    expect(first.status).toBe(200);
    expect(first.body.derived.every((d: { turns: string[] }) => d.turns.includes('a:1'))).toBe(true);
    expect(first.body.derived.map((d: { op: string }) => d.op)).toEqual(expect.arrayContaining(['UPSERT_ENTITY', 'UPSERT_EDGE', 'UPSERT_EVENT']));
    const second = await svc.post('/v1/memories/moves/turns', {
      sessionId: 'b',
      turns: [{ turnId: 'b:1', speaker: 'Alice', text: 'I moved to Lyon last week, new flat, new life.', at: '2024-09-20T10:00:00Z' }],
    });
    expect(second.status).toBe(200);
    const homeAt = async (validAt: string) => {
      const facts = (await svc.get(`/v1/memories/moves/facts?rel=lives_in&validAt=${validAt}&minPosition=${second.body.position}`)).body.facts;
      const names = await Promise.all(facts.map(async (f: { dst: string }) => (await svc.get(`/v1/memories/moves/entities/${f.dst}`)).body.name));
      return names;
    };
    expect(await homeAt('2024-06-01T00:00:00Z')).toEqual(['Porto']);
    expect(await homeAt('2024-10-01T00:00:00Z')).toEqual(['Lyon']);
    const derived = (await svc.get('/v1/memories/moves/mentions/b:1/derived')).body.commands;
    expect(derived.every((c: { actor: string }) => c.actor === 'extractor:rules@2.0.0')).toBe(true);
  });
});

describe('a job hunt, told over a week, with the default extractor', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService();
  }, 60_000);
  afterAll(async () => svc?.stop());

  it('keeps what Dana said as statements: looking for work, children, not working, then a data-entry job that supersedes', async () => {
    const sent = await svc.post('/v1/memories/job-hunt/turns', {
      sessionId: 'hunt',
      turns: CHAT.map(([speaker, text, at], i) => ({ turnId: `hunt:${i + 1}`, speaker, text, at })),
    });
    expect(sent.status).toBe(200);
    const at = `minPosition=${sent.body.position}`;
    const dana = deriveEntityId('job-hunt', 'Dana');
    type Fact = { rel: string; src: string; dst: string | { literal: string }; validFrom: string; validTo: string | null; evidence: string[] };
    const factsAt = async (validAt: string): Promise<Fact[]> => (await svc.get(`/v1/memories/job-hunt/facts?validAt=${validAt}&${at}`)).body.facts;
    const said = (facts: Fact[], rel: string) =>
      facts.filter((f) => f.src === dana && f.rel === rel).map((f) => (f.dst as { literal: string }).literal);

    const all = await factsAt('*');
    expect(said(all, 'seeks')).toEqual(expect.arrayContaining(['job in call center or data entry']));
    expect(said(all, 'has_child')).toEqual(['school age children']);
    expect(said(all, 'has_family')).toEqual(['brother']);
    // Not working, then the job: one `works_as` at a time, the DSL ending the first where the second begins.
    expect(said(await factsAt('2024-03-04T00:00:00Z'), 'works_as')).toEqual(['not working']);
    expect(said(await factsAt('2024-03-09T00:00:00Z'), 'works_as')).toEqual(['remote data entry']);
    const worksAs = all.filter((f) => f.rel === 'works_as').sort((a, b) => a.validFrom.localeCompare(b.validFrom));
    expect(worksAs.map((f) => [f.validFrom, f.validTo, f.evidence])).toEqual([
      ['2024-03-01T09:02:00.000Z', '2024-03-08T12:00:00.000Z', ['hunt:3']],
      ['2024-03-08T12:00:00.000Z', null, ['hunt:11']],
    ]);

    // The only entity is Dana: neither "Remote Data", "Call center" nor "Day care" is an organisation.
    const entities = sent.body.derived.filter((d: { op: string; status: string }) => d.op === 'UPSERT_ENTITY' && d.status === 'applied');
    expect(entities.map((d: { ids: { entityId: string } }) => d.ids.entityId)).toEqual([dana]);
    // Sam's questions, thanks and wishes derive nothing.
    const fromSam = sent.body.derived.filter((d: { turns: string[] }) => d.turns.some((t) => Number(t.split(':')[1]) % 2 === 0));
    expect(fromSam).toEqual([]);

    // No fact or event holds a turn's sentence: each says its content once, compactly.
    const exported = (await fetch(`${svc.url}/v1/memories/job-hunt/export`).then((r) => r.text()))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    // A fact says "<subject> <rel> <object>" (the only subject here is Dana), an event its summary; a copy repeats six
    // words or more of a turn as they are (the measure of ../shared/eval/statement-match.mjs).
    const texts = exported.flatMap((c: { op: string; rel?: string; summary?: string; dst?: { literal?: string } }) =>
      c.op === 'UPSERT_EVENT'
        ? [c.summary!]
        : c.op === 'UPSERT_EDGE' && typeof c.dst === 'object'
          ? [`Dana ${c.rel!.replace(/_/g, ' ')} ${c.dst.literal}`]
          : [],
    );
    expect(texts.length).toBeGreaterThan(3);
    for (const text of texts) for (const [, line] of CHAT) expect(line.includes(text) && text.split(' ').length >= 6).toBe(false);
    expect(exported.filter((c: { op: string; rel?: string }) => c.op === 'UPSERT_EDGE' && c.rel === 'told')).toEqual([]);
  });
});

describe('turns with the default extractor and an embedding model', () => {
  let svc: TestService;
  // Names are alike when they share a concept: "Acme Corp" and "Acme Corporation" are one organisation to this model.
  const model = conceptEmbeddings([['acme'], ['alice'], ['lyon']]);
  beforeAll(async () => {
    svc = await startTestService({}, { embeddings: model });
  }, 60_000);
  afterAll(async () => svc?.stop());

  it('resolves a near-duplicate name through the model above the merge gate, and names the model in its version', async () => {
    const say = (session: string, text: string, at: string) =>
      svc.post('/v1/memories/names/turns', { sessionId: session, turns: [{ turnId: `${session}:1`, speaker: 'Alice', text, at }] });
    await say('a', 'I started working at Acme Corporation last month.', '2024-05-11T18:30:00Z');
    const second = await say('b', 'These days I work at Acme Corp and I love it.', '2024-07-01T10:00:00Z');
    expect(second.body.derived).toContainEqual(expect.objectContaining({ op: 'UPSERT_ENTITY', status: 'applied' }));
    const facts = (await svc.get(`/v1/memories/names/facts?rel=works_at&validAt=*&minPosition=${second.body.position}`)).body.facts;
    // One employer, said twice: the second name is an alias of the first entity, and the fact cites both turns.
    expect(facts).toHaveLength(1);
    expect(facts[0].evidence).toEqual(['a:1', 'b:1']);
    const employer = (await svc.get(`/v1/memories/names/entities/${facts[0].dst}`)).body;
    expect(employer).toMatchObject({ name: 'Acme Corporation', aliases: expect.arrayContaining(['Acme Corp']) });
    expect((await svc.get('/v1/memories/names/extraction')).body.extractor).toBe('rules@2.0.0+names-test-concepts');
  });

  it('embeds every item a chat derives, facts named by the entities their own batch registers', async () => {
    const sent = await svc.post('/v1/memories/job-hunt-search/turns', {
      sessionId: 'hunt',
      turns: CHAT.map(([speaker, text, at], i) => ({ turnId: `hunt:${i + 1}`, speaker, text, at })),
    });
    expect(sent.status).toBe(200);
    const search = async () =>
      (await svc.post('/v1/memories/job-hunt-search/search', { query: 'Dana job', minPosition: sent.body.position })).body as {
        items: { kind: string }[];
        unembedded: number;
      };
    // The embedder works in the background: wait (bounded) until it has every item the search shows.
    const deadline = Date.now() + 30_000;
    let found = await search();
    while (found.unembedded > 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      found = await search();
    }
    expect(found.items.some((i) => i.kind === 'fact')).toBe(true);
    expect(found.unembedded).toBe(0);
  }, 60_000);
});
