import { type TestService, startTestService } from './testing/test-service';

/** The README story, through HTTP: Acme then Beta (SPEC §3.1 supersession). */
const MON = '2024-05-06T09:00:00.000Z';
const TUE = '2024-05-07T12:00:00.000Z';
const WED = '2024-05-08T00:00:00.000Z';
const WED_NOON = '2024-05-08T12:00:00.000Z';
const THU = '2024-05-09T10:00:00.000Z';

describe('Acme then Beta over HTTP', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService();
    const monday = await t.commands('story', [
      { op: 'UPSERT_ENTITY', entityId: 'alice', name: 'Alice', recordedAt: MON },
      { op: 'UPSERT_ENTITY', entityId: 'acme', name: 'Acme', recordedAt: MON },
      { op: 'UPSERT_ENTITY', entityId: 'beta', name: 'Beta', recordedAt: MON },
      { op: 'DEFINE_RELATION', rel: 'works_at', cardinality: 'one', recordedAt: MON },
      {
        op: 'UPSERT_EDGE',
        commandId: 'acme-1',
        factId: 'alice-acme',
        src: 'alice',
        rel: 'works_at',
        dst: 'acme',
        validFrom: '2024-05-06T00:00:00Z',
        actor: 'agent-7',
        recordedAt: MON,
      },
    ]);
    expect(monday.status).toBe(200);
    const thursday = await t.commands('story', [
      {
        op: 'UPSERT_EDGE',
        commandId: 'beta-1',
        factId: 'alice-beta',
        src: 'alice',
        rel: 'works_at',
        dst: 'beta',
        validFrom: WED,
        recordedAt: THU,
        reason: 'Alice said she moved',
      },
    ]);
    expect(thursday.status).toBe(200);
    expect(thursday.body.results[0]).toEqual({
      commandId: 'beta-1',
      status: 'applied',
      recordedAt: THU,
      ids: { factId: 'alice-beta', supersededFactIds: ['alice-acme'] },
    });
  });
  afterAll(() => t.stop());

  const employer = async (query: string, consistency = 'projection') => {
    const { status, body } = await t.get(`/v1/memories/story/facts?src=alice&rel=works_at&consistency=${consistency}&${query}`);
    expect(status).toBe(200);
    return body.facts.map((f: { dst: string }) => f.dst);
  };

  it.each(['projection', 'replay'])('answers the three cuts (%s)', async (consistency) => {
    expect(await employer(`validAt=${TUE}`, consistency)).toEqual(['acme']);
    expect(await employer(`validAt=${THU}`, consistency)).toEqual(['beta']);
    expect(await employer(`validAt=${WED_NOON}&recordedAt=${WED_NOON}`, consistency)).toEqual(['acme']);
  });

  it('keeps the Acme fact true for [Mon, Wed) by today’s knowledge', async () => {
    const { body } = await t.get(`/v1/memories/story/facts?validAt=${TUE}`);
    expect(body.source).toBe('projection');
    expect(body.facts).toEqual([
      {
        factId: 'alice-acme',
        src: 'alice',
        rel: 'works_at',
        dst: 'acme',
        validFrom: '2024-05-06T00:00:00.000Z',
        validTo: WED,
        recordedFrom: THU,
        recordedTo: null,
        confidence: null,
        evidence: [],
        source: null,
        tier: 'hot',
      },
    ]);
  });

  it('shows both versions of the Acme fact in its history', async () => {
    const { status, body } = await t.get('/v1/memories/story/facts/alice-acme/history');
    expect(status).toBe(200);
    expect(body.versions.map((v: any) => [v.validTo, v.recordedFrom, v.recordedTo])).toEqual([
      [null, MON, THU],
      [WED, THU, null],
    ]);
  });

  it('audits every event that touched each fact, in log order', async () => {
    const acme = await t.get('/v1/memories/story/facts/alice-acme/audit');
    expect(acme.body.events.map((e: any) => [e.type, e.commandId, e.recordedAt, e.actor])).toEqual([
      ['FactAsserted', 'acme-1', MON, 'agent-7'],
      ['FactSuperseded', 'beta-1', THU, null],
    ]);
    expect(acme.body.events[1].reason).toBe('Alice said she moved');
    expect(acme.body.events[0].position).toBeLessThan(acme.body.events[1].position);
    const beta = await t.get('/v1/memories/story/facts/alice-beta/audit');
    expect(beta.body.events.map((e: any) => e.type)).toEqual(['FactAsserted']);
  });

  it('lists the versions opened and closed on Thursday as changes', async () => {
    const { body } = await t.get(`/v1/memories/story/changes?from=${THU}&to=2024-05-10T00:00:00Z`);
    expect(body.changes.map((c: any) => [c.change, c.version.factId, c.at])).toEqual([
      ['closed', 'alice-acme', THU],
      ['opened', 'alice-acme', THU],
      ['opened', 'alice-beta', THU],
    ]);
    const since = await t.get(`/v1/memories/story/changes?from=${THU}`);
    expect(since.status).toBe(200);
    expect(since.body.changes).toEqual(body.changes);
    expect(Date.parse(since.body.to)).toBeGreaterThan(Date.parse('2024-05-10T00:00:00Z'));
    const empty = await t.get(`/v1/memories/story/changes?from=${THU}&to=${THU}`);
    expect([empty.status, empty.body.changes]).toEqual([200, []]);
  });
});
