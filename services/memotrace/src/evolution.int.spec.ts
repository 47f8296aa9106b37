import pg from 'pg';
import { type TestService, startTestService } from './testing/test-service';

/**
 * SPEC 5.4 over HTTP: SET_TIER_POLICY, tiers on fact answers (projection and replay alike), cold items
 * left out of search unless asked for and warmed when returned, UPSERT_TOPIC and GET /topics with their
 * visibility, POST /consolidate (appended commands, a second run all duplicate, merge suggestions), and
 * the retrieval statistics reached by erasure and by a memory's deletion.
 */
const R1 = '2024-05-06T09:00:00.000Z';
const R2 = '2024-05-20T09:00:00.000Z';
const MON = '2024-05-06T00:00:00.000Z';
const JUNE = '2024-06-15T00:00:00.000Z';

let t: TestService;
let db: pg.Client;
beforeAll(async () => {
  t = await startTestService({ consolidateIntervalMs: 0 });
  db = new pg.Client({ connectionString: t.service.databaseUrl });
  await db.connect();
});
afterAll(async () => {
  await db.end();
  await t.stop();
});

const at = (recordedAt: string) => (command: object) => ({ ...command, recordedAt });

async function ok(memoryId: string, commands: object[]): Promise<any> {
  const written = await t.commands(memoryId, commands);
  expect(written.status).toBe(200);
  return written.body;
}

async function facts(memoryId: string, query = 'validAt=*'): Promise<any[]> {
  const projected = await t.get(`/v1/memories/${memoryId}/facts?${query}`);
  const replayed = await t.get(`/v1/memories/${memoryId}/facts?${query}&consistency=replay`);
  expect(projected.status).toBe(200);
  expect({ ...replayed.body, source: 'projection', cut: projected.body.cut }).toEqual(projected.body);
  return projected.body.facts;
}

const ALICE = [
  { op: 'UPSERT_ENTITY', entityId: 'alice', name: 'Alice' },
  { op: 'UPSERT_ENTITY', entityId: 'acme', name: 'Acme' },
  { op: 'RECORD_MENTION', mentionId: 'm1', docId: 's1', text: 'I started at Acme on Monday', speaker: 'Alice', occurredAt: MON },
  { op: 'UPSERT_EDGE', factId: 'alice-acme', src: 'alice', rel: 'works_at', dst: 'acme', validFrom: MON, evidence: ['m1'], confidence: 0.6 },
  { op: 'UPSERT_EVENT', eventId: 'joined', summary: 'Alice joined Acme', includesFacts: ['alice-acme'], timeSpan: { from: MON } },
].map(at(R1));

describe('SET_TIER_POLICY', () => {
  it('is validated at the edge and writes nothing when bad', async () => {
    await ok('tiers-policy', ALICE);
    for (const bad of [
      { coldAfter: '30 days', salienceFloor: 0.5 },
      { coldAfter: 'P30D', salienceFloor: 1.5 },
      { coldAfter: 'P30D' },
      { coldAfter: 'P30D', salienceFloor: 0.5, extra: 1 },
    ]) {
      const answer = await t.commands('tiers-policy', [{ op: 'SET_TIER_POLICY', ...bad }]);
      expect(answer.status).toBe(400);
      expect(answer.body.error.code).toBe('INVALID_REQUEST');
    }
    const first = await ok('tiers-policy', [{ op: 'SET_TIER_POLICY', coldAfter: 'P30D', salienceFloor: 0.5 }]);
    expect(first.results[0].status).toBe('applied');
    const again = await ok('tiers-policy', [{ op: 'SET_TIER_POLICY', coldAfter: 'P30D', salienceFloor: 0.5 }]);
    expect(again.results[0].status).toBe('unchanged');
    // In the log like any command: export lists it.
    const exported = await t.get('/v1/memories/tiers-policy/export');
    expect(exported.text).toContain('"op":"SET_TIER_POLICY"');
  });
});

describe('tiers', () => {
  const memory = 'tiers';
  beforeAll(async () => {
    await ok(memory, ALICE);
  });

  it('never cools a memory without a policy; every fact answer says hot', async () => {
    const run = await t.post(`/v1/memories/${memory}/consolidate`, {});
    expect(run.status).toBe(200);
    expect(run.body.cooled).toBe(0);
    expect((await facts(memory)).map((f) => f.tier)).toEqual(['hot']);
  });

  it('cools what is idle and below the floor; a cold fact answers as a hot one but for its tier', async () => {
    const before = await facts(memory);
    const history = (await t.get(`/v1/memories/${memory}/facts/alice-acme/history`)).body;
    await ok(memory, [{ op: 'SET_TIER_POLICY', coldAfter: 'P30D', salienceFloor: 0.99 }]);
    const run = await t.post(`/v1/memories/${memory}/consolidate`, {});
    expect(run.status).toBe(200);
    expect(run.body.cooled).toBe(3); // the fact, the event, the mention: asserted in 2024, never returned
    const after = await facts(memory);
    expect(after.map((f) => f.tier)).toEqual(['cold']);
    expect(after.map(({ tier: _, ...f }) => f)).toEqual(before.map(({ tier: _, ...f }) => f));
    const coldHistory = (await t.get(`/v1/memories/${memory}/facts/alice-acme/history`)).body;
    expect(coldHistory.versions.map((v: any) => v.tier)).toEqual(['cold']);
    expect(coldHistory.versions.map(({ tier: _, ...v }: any) => v)).toEqual(history.versions.map(({ tier: _, ...v }: any) => v));
    const check = await t.post(`/v1/memories/${memory}/check`, { claims: [{ src: 'alice', rel: 'works_at', dst: 'acme' }], validAt: JUNE });
    expect(check.body.verdicts[0].verdict).toBe('supported');
    expect(check.body.verdicts[0].facts.map((f: any) => f.tier)).toEqual(['cold']);
  });

  it('leaves cold items out of search unless asked for; returning one warms it', async () => {
    const hot = await t.post(`/v1/memories/${memory}/search`, { query: 'Alice Acme' });
    expect(hot.status).toBe(200);
    expect(hot.body.items.filter((i: any) => i.kind !== 'episode')).toEqual([]);
    const all = await t.post(`/v1/memories/${memory}/search`, { query: 'Alice Acme', tiers: ['hot', 'cold'] });
    expect(all.body.items.length).toBeGreaterThan(0);
    for (const item of all.body.items) {
      expect(item.salience).toBeGreaterThanOrEqual(0);
      expect(item.salience).toBeLessThanOrEqual(1);
      expect(item.tier).toBe('cold'); // as it was when found
    }
    expect((await facts(memory)).map((f) => f.tier)).toEqual(['hot']);
    const again = await t.post(`/v1/memories/${memory}/search`, { query: 'Alice Acme' });
    expect(again.body.items.map((i: any) => i.id).sort()).toEqual(all.body.items.map((i: any) => i.id).sort());
    // Returned just now: not idle, so the next run keeps them hot.
    const run = await t.post(`/v1/memories/${memory}/consolidate`, {});
    expect(run.body.cooled).toBe(0);
  });

  it('rejects bad tiers', async () => {
    for (const tiers of [[], ['warm'], 'hot']) {
      const answer = await t.post(`/v1/memories/${memory}/search`, { query: 'Alice', tiers });
      expect(answer.status).toBe(400);
    }
  });

  it('is reached by erasure and by the memory deletion', async () => {
    const rows = async () => (await db.query('SELECT kind, item_id FROM mt_item_tiers WHERE memory_id = $1 ORDER BY kind', [memory])).rows;
    expect((await rows()).map((r) => r.item_id)).toContain('m1');
    await ok(memory, [{ op: 'ERASE', subject: { mentionId: 'm1' }, reason: 'asked to forget' }]);
    expect((await rows()).map((r) => r.item_id)).not.toContain('m1');
    const deleted = await fetch(`${t.url}/v1/memories/${memory}`, { method: 'DELETE' });
    expect(deleted.status).toBe(200);
    expect(await rows()).toEqual([]);
  });
});

describe('topics', () => {
  const memory = 'topics';
  const topic = {
    op: 'UPSERT_TOPIC',
    topicId: 'alice-work',
    title: 'Alice at Acme',
    summary: 'Alice joined Acme in May.',
    window: { from: MON, to: JUNE },
    members: ['m1', 'joined', 'alice-acme'],
  };
  beforeAll(async () => {
    await ok(memory, [...ALICE, at(R1)(topic)]);
  });

  async function topics(query: string): Promise<any> {
    const projected = await t.get(`/v1/memories/${memory}/topics?${query}`);
    const replayed = await t.get(`/v1/memories/${memory}/topics?${query}&consistency=replay`);
    expect(projected.status).toBe(200);
    expect({ ...replayed.body, source: 'projection', cut: projected.body.cut }).toEqual(projected.body);
    return projected.body;
  }

  it('lists a topic with its visible members; a validAt outside its window leaves it out', async () => {
    const listed = await topics(`recordedAt=${R1}`);
    expect(listed.topics).toEqual([
      {
        topicId: 'alice-work',
        title: 'Alice at Acme',
        summary: 'Alice joined Acme in May.',
        window: { from: MON, to: JUNE },
        members: ['m1', 'joined', 'alice-acme'],
        recordedFrom: R1,
      },
    ]);
    expect((await topics(`validAt=2024-05-10T00:00:00.000Z&recordedAt=${R1}`)).topics).toHaveLength(1);
    expect((await topics(`validAt=${JUNE}&recordedAt=${R1}`)).topics).toEqual([]);
    expect((await topics(`recordedAt=2024-05-01T00:00:00.000Z`)).topics).toEqual([]);
  });

  it('lists only the members visible at the record time, and is gone when none is', async () => {
    await ok(memory, [at(R1)({ ...topic, topicId: 'fact-only', members: ['alice-acme'] })]);
    await ok(memory, [{ op: 'ARCHIVE_EDGE', factId: 'alice-acme', recordedAt: R2 }]);
    // The event's evidence is no longer believed: it is not visible either; the mention stays.
    expect((await topics(`recordedAt=${R2}`)).topics.map((x: any) => [x.topicId, x.members])).toEqual([['alice-work', ['m1']]]);
    expect((await topics(`recordedAt=${R1}`)).topics.map((x: any) => [x.topicId, x.members])).toEqual([
      ['alice-work', ['m1', 'joined', 'alice-acme']],
      ['fact-only', ['alice-acme']],
    ]);
  });

  it('404s an unknown member and 400s a topic without members', async () => {
    const unknown = await t.commands(memory, [{ ...topic, topicId: 'other', members: ['nobody'] }]);
    expect(unknown.status).toBe(404);
    const none = await t.commands(memory, [{ ...topic, topicId: 'other', members: [] }]);
    expect(none.status).toBe(400);
    expect((await topics('')).topics.map((x: any) => x.topicId)).toEqual(['alice-work']); // fact-only: its fact is archived
  });

  it('appends a new version when upserted again, keeping what was believed before', async () => {
    const R3 = '2024-05-25T09:00:00.000Z';
    await ok(memory, [{ ...topic, summary: 'Alice joined Acme, then left.', recordedAt: R3 }]);
    expect((await topics(`recordedAt=${R3}`)).topics[0].summary).toBe('Alice joined Acme, then left.');
    expect((await topics(`recordedAt=${R1}`)).topics[0].summary).toBe('Alice joined Acme in May.');
  });
});

describe('POST /consolidate', () => {
  const memory = 'consolidate';
  const day = (n: number) => new Date(Date.UTC(2024, 2, 1 + n, 10)).toISOString();
  const turns = [
    [0, 'Caroline', 'I went to an adoption agency meeting today, the adoption process is long'],
    [1, 'Melanie', 'Nice weather for running'],
    [9, 'Caroline', 'The adoption agency called me back about the adoption interview'],
    [20, 'Caroline', 'My adoption interview at the agency went well'],
    [30, 'Melanie', 'I ran a half marathon'],
    [41, 'Caroline', 'The adoption agency approved my adoption application'],
  ] as const;

  beforeAll(async () => {
    await ok(memory, [
      { op: 'UPSERT_ENTITY', entityId: 'acme-inc', name: 'Acme Inc.', types: ['organization'], recordedAt: day(0) },
      { op: 'UPSERT_ENTITY', entityId: 'acme-corp', name: 'Acme Corporation', types: ['organization'], recordedAt: day(0) },
      ...turns.map(([n, speaker, text], i) => ({
        op: 'RECORD_MENTION',
        mentionId: `t${i}`,
        docId: `session-${n}`,
        text,
        speaker,
        occurredAt: day(n),
        recordedAt: day(n),
      })),
    ]);
  });

  it('404s a memory without records and 400s a body with fields', async () => {
    expect((await t.post('/v1/memories/nothing-here/consolidate', {})).status).toBe(404);
    expect((await t.post(`/v1/memories/${memory}/consolidate`, { force: true })).status).toBe(400);
  });

  it('appends topics as the consolidator, suggests merges, and appends nothing new the second time', async () => {
    const first = await t.post(`/v1/memories/${memory}/consolidate`, {});
    expect(first.status).toBe(200);
    const topicsAppended = first.body.appended.filter((a: any) => a.op === 'UPSERT_TOPIC');
    expect(topicsAppended.length).toBeGreaterThan(0);
    expect(topicsAppended.every((a: any) => a.status === 'applied')).toBe(true);
    expect(first.body.mergeSuggestions).toEqual(
      expect.arrayContaining([expect.objectContaining({ srcId: expect.any(String), dstId: expect.any(String), score: expect.any(Number) })]),
    );
    const pair = first.body.mergeSuggestions.map((s: any) => [s.srcId, s.dstId].sort().join('+'));
    expect(pair).toContain('acme-corp+acme-inc');

    const listed = (await t.get(`/v1/memories/${memory}/topics`)).body.topics;
    const adoption = listed.find((x: any) => /adoption/i.test(x.title));
    expect(adoption).toBeDefined();
    expect(adoption.members).toEqual(['t0', 't2', 't3', 't5']);
    expect(adoption.window.from).toBe(day(0));

    const second = await t.post(`/v1/memories/${memory}/consolidate`, {});
    expect(second.body.appended.map((a: any) => a.commandId)).toEqual(first.body.appended.map((a: any) => a.commandId));
    expect(second.body.appended.every((a: any) => a.status === 'duplicate')).toBe(true);
    // Nothing merged: both entities are still their own.
    expect((await t.get(`/v1/memories/${memory}/entities/acme-inc`)).body.entityId).toBe('acme-inc');
  });
});

describe('restated facts', () => {
  const memory = 'restated';
  it('stay one fact gathering their evidence; the restatements are archived by the consolidator', async () => {
    await ok(memory, [
      ...ALICE.slice(0, 3),
      at(R1)({ op: 'RECORD_MENTION', mentionId: 'm2', docId: 's2', text: 'Still at Acme', speaker: 'Alice', occurredAt: R1 }),
      at(R1)({ op: 'UPSERT_EDGE', factId: 'by-extractor', src: 'alice', rel: 'works_at', dst: 'acme', validFrom: MON, evidence: ['m1'] }),
      at(R2)({ op: 'UPSERT_EDGE', factId: 'by-agent', src: 'alice', rel: 'works_at', dst: 'acme', validFrom: R2, evidence: ['m2'] }),
    ]);
    const run = await t.post(`/v1/memories/${memory}/consolidate`, {});
    const factCommands = run.body.appended.filter((a: any) => a.op.endsWith('_EDGE')).map((a: any) => [a.op, a.status]);
    expect(factCommands).toEqual([
      ['UPSERT_EDGE', 'applied'],
      ['ARCHIVE_EDGE', 'applied'],
    ]);
    const now = await facts(memory);
    expect(now.map((f) => [f.factId, f.evidence])).toEqual([['by-extractor', ['m1', 'm2']]]);
    const audit = (await t.get(`/v1/memories/${memory}/facts/by-agent/audit`)).body.events;
    expect(audit.at(-1)).toMatchObject({ type: 'FactArchived', actor: 'consolidator:rules@1', reason: 'restated as by-extractor' });
    // What was believed before the run stays: at R2 both facts were open.
    expect((await facts(memory, `validAt=*&recordedAt=${R2}`)).map((f) => f.factId)).toEqual(['by-agent', 'by-extractor']);
    const again = await t.post(`/v1/memories/${memory}/consolidate`, {});
    expect(again.body.appended.filter((a: any) => a.op.endsWith('_EDGE'))).toEqual([]);
  });
});

describe('erasure reaches topics', () => {
  const memory = 'topics-erased';
  const CANARY = 'CANARY-topic-qwzx';
  it("takes a topic's title and summary with a member's content, in every answer and the export", async () => {
    await ok(memory, [
      at(R1)({ op: 'RECORD_MENTION', mentionId: 'secret', docId: 'chat-1', text: `my code is ${CANARY}`, speaker: 'Dana', occurredAt: R1 }),
      at(R1)({ op: 'RECORD_MENTION', mentionId: 'plain', docId: 'chat-2', text: 'hello again', speaker: 'Dana', occurredAt: R1 }),
      at(R1)({ op: 'UPSERT_TOPIC', topicId: 'kept', title: 'Dana says hello', summary: 'hello again', window: { from: MON }, members: ['plain'] }),
      at(R1)({
        op: 'UPSERT_TOPIC',
        topicId: 'told',
        title: `Dana: ${CANARY}`,
        summary: `Dana said ${CANARY}`,
        window: { from: MON },
        members: ['secret', 'plain'],
      }),
    ]);
    await ok(memory, [{ op: 'ERASE', subject: { docId: 'chat-1' }, reason: 'asked to forget', recordedAt: R2 }]);
    for (const recordedAt of [R1, R2]) {
      const projected = await t.get(`/v1/memories/${memory}/topics?recordedAt=${recordedAt}`);
      const replayed = await t.get(`/v1/memories/${memory}/topics?recordedAt=${recordedAt}&consistency=replay`);
      expect(replayed.body.topics).toEqual(projected.body.topics);
      expect(projected.body.topics.map((x: any) => [x.topicId, x.title, x.summary, x.erased ?? false])).toEqual([
        ['kept', 'Dana says hello', 'hello again', false],
        ['told', null, null, true],
      ]);
    }
    const exported = await t.get(`/v1/memories/${memory}/export`);
    expect(exported.text).not.toContain(CANARY);
    expect(exported.text).toContain('"op":"UPSERT_TOPIC"');
  });
});

describe('background consolidation', () => {
  it('runs on its own every CONSOLIDATE_INTERVAL_MS once a memory is quiet: it cools without a POST', async () => {
    const background = await startTestService({ consolidateIntervalMs: 200 });
    try {
      // Two low-salience events of one participant set and month: a run appends an episode, at the server clock.
      const second = {
        op: 'UPSERT_EVENT',
        eventId: 'stayed',
        summary: 'Alice stayed at Acme',
        includesFacts: ['alice-acme'],
        timeSpan: { from: MON },
      };
      const policy = { op: 'SET_TIER_POLICY', coldAfter: 'P1D', salienceFloor: 0.99 };
      const written = await background.commands('idle', [...ALICE, at(R1)(second), at(R1)(policy)]);
      expect(written.status).toBe(200);
      // A back-fill with record times in the past, for longer than several sweeps: no run comes between its writes.
      for (let i = 0; i < 15; i++) {
        const turn = { op: 'RECORD_MENTION', docId: 'later', text: `turn ${i}`, recordedAt: new Date(Date.parse(R1) + (i + 1) * 1000).toISOString() };
        expect((await background.commands('idle', [turn])).status).toBe(200);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      let tiers: string[] = [];
      for (let i = 0; i < 50 && tiers[0] !== 'cold'; i++) {
        await new Promise((resolve) => setTimeout(resolve, 200));
        tiers = (await background.get('/v1/memories/idle/facts?validAt=*')).body.facts.map((f: any) => f.tier);
      }
      expect(tiers).toEqual(['cold']);
    } finally {
      await background.stop();
    }
  });
});
