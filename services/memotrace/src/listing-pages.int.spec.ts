import { type TestService, startTestService } from './testing/test-service';

/**
 * The reads a client of a large memory asks through HTTP: pages of facts, events, episodes and changes,
 * facts from several entities, events about an entity, entities by id; each answered alike by the read
 * models and by replay (`consistency=replay`), and walked page by page to the whole listing.
 */
const T0 = '2024-01-01T00:00:00.000Z';
const T1 = '2024-02-01T00:00:00.000Z';
const T2 = '2024-03-01T00:00:00.000Z';
const M = '/v1/memories/pages';
const LATER = `recordedAt=2024-06-01T00:00:00.000Z`;

describe('listings a page at a time, and the filters of a neighbourhood', () => {
  let t: TestService;
  let position: number;
  beforeAll(async () => {
    t = await startTestService();
    const people = ['ann', 'bob', 'cy', 'dee', 'eve'];
    const written = await t.commands('pages', [
      ...people.map((id) => ({ op: 'UPSERT_ENTITY', entityId: id, name: id.toUpperCase(), recordedAt: T0 })),
      ...people.map((id, i) => ({
        op: 'UPSERT_EDGE',
        factId: `f-${id}`,
        src: id,
        rel: 'knows',
        dst: people[(i + 1) % people.length],
        validFrom: T0,
        recordedAt: T0,
      })),
      { op: 'RECORD_MENTION', mentionId: 'm-age', docId: 'chat', text: 'Ann: I am 30', speaker: 'Ann', recordedAt: T0 },
      { op: 'UPSERT_EDGE', factId: 'f-ann-age', src: 'ann', rel: 'age', dst: { literal: 30 }, validFrom: T0, evidence: ['m-age'], recordedAt: T0 },
      {
        op: 'UPSERT_EVENT',
        eventId: 'ev-party',
        summary: 'a party',
        participants: [{ entityId: 'ann', role: 'host' }],
        includesFacts: ['f-cy'],
        timeSpan: { from: T0 },
        recordedAt: T1,
      },
      { op: 'UPSERT_EVENT', eventId: 'ev-walk', summary: 'a walk', includesFacts: ['f-eve'], timeSpan: { from: T0 }, recordedAt: T1 },
      { op: 'UPSERT_EPISODE', episodeId: 'ep-1', title: 'the party', window: { from: T0 }, events: ['ev-party'], recordedAt: T1 },
      { op: 'UPSERT_EPISODE', episodeId: 'ep-2', title: 'both', window: { from: T0 }, events: ['ev-walk', 'ev-party'], recordedAt: T1 },
      { op: 'MERGE_ENTITY', srcId: 'dee', dstId: 'cy', recordedAt: T2 },
      // The walk's evidence goes: the walk leaves the cut, and ep-2 lists only the party from then on.
      { op: 'ARCHIVE_EDGE', factId: 'f-eve', recordedAt: T2 },
    ]);
    expect(written.status).toBe(200);
    position = written.body.position;
  });
  afterAll(() => t?.stop());

  /** The same read by both sources: their answers but the source name are equal. */
  const both = async (path: string) => {
    const sep = path.includes('?') ? '&' : '?';
    const [projection, replay] = await Promise.all([
      t.get(`${M}/${path}${sep}consistency=projection&minPosition=${position}`),
      t.get(`${M}/${path}${sep}consistency=replay`),
    ]);
    expect([projection.status, replay.status]).toEqual([200, 200]);
    expect({ ...replay.body, source: 'projection' }).toEqual(projection.body);
    return projection.body;
  };

  /** Every page of a listing at a past record time (`path` names it), following `next`. */
  const walk = async (path: string, key: string, limit: number) => {
    const seen: string[][] = [];
    let after: string | null = null;
    do {
      const body: any = await both(`${path}&limit=${limit}${after === null ? '' : `&after=${encodeURIComponent(after)}`}`);
      seen.push(body[key].map((x: any) => x.factId ?? x.eventId ?? x.episodeId ?? x.entityId));
      after = body.next;
    } while (after !== null);
    return seen;
  };

  it('pages the facts of a cut by factId, and says when no page follows', async () => {
    expect(await walk(`facts?validAt=*&${LATER}`, 'facts', 2)).toEqual([['f-ann', 'f-ann-age'], ['f-bob', 'f-cy'], ['f-dee']]);
    const whole = await both(`facts?validAt=*&${LATER}`);
    expect([whole.facts.length, whole.next]).toEqual([5, null]);
  });

  it('takes several src, each standing for its class at the cut', async () => {
    const before = await both(`facts?validAt=*&recordedAt=${T1}&src=cy&src=ann`);
    expect(before.facts.map((f: any) => f.factId)).toEqual(['f-ann', 'f-ann-age', 'f-cy']);
    const after = await both(`facts?validAt=*&${LATER}&src=cy&limit=1`);
    expect([after.facts.map((f: any) => f.factId), after.next]).toEqual([['f-cy'], 'f-cy']);
    // With the entities they name: f-cy is cy's, to dee, who is cy's by then (one entity); f-dee is to eve.
    const named = await both(`facts?validAt=*&${LATER}&src=cy&include=entities`);
    expect(named.facts.map((f: any) => [f.factId, f.src, f.dst])).toEqual([
      ['f-cy', 'cy', 'cy'],
      ['f-dee', 'cy', 'eve'],
    ]);
    expect(named.entities.map((e: any) => [e.entityId, e.name])).toEqual([
      ['cy', 'CY'],
      ['eve', 'EVE'],
    ]);
    expect((await both(`facts?validAt=*&recordedAt=${T1}&src=cy`)).entities).toBeUndefined();
    // With the mentions its facts cite, and with the entities too.
    const cited = await both(`facts?validAt=*&${LATER}&src=ann&include=mentions`);
    expect([cited.entities, cited.mentions.map((m: any) => [m.mentionId, m.text, m.speaker])]).toEqual([
      undefined,
      [['m-age', 'Ann: I am 30', 'Ann']],
    ]);
    const named2 = await both(`facts?validAt=*&${LATER}&src=ann&include=entities&include=mentions`);
    expect([named2.entities.map((e: any) => e.entityId), named2.mentions.map((m: any) => m.mentionId)]).toEqual([['ann', 'bob'], ['m-age']]);
    expect((await both(`facts?validAt=*&${LATER}&src=bob&include=mentions`)).mentions).toEqual([]);
    expect((await t.get(`${M}/facts?include=events`)).status).toBe(400);
    // A page of entities with their facts, as the facts read answers them for that page.
    const page = await both(`entities?validAt=*&${LATER}&limit=2&include=facts`);
    expect(page.entities.map((e: any) => e.entityId)).toEqual(['ann', 'bob']);
    const { cut: _cut, source: _source, ...factsOfPage } = await both(`facts?validAt=*&${LATER}&src=ann&src=bob&limit=1000&include=entities`);
    expect(page.facts).toEqual(factsOfPage);
    expect(page.facts.facts.map((f: any) => f.factId)).toEqual(['f-ann', 'f-ann-age', 'f-bob']);
    // Each entity's first facts only, with how many it has: the entities named are those of the facts kept.
    const firsts = await both(`entities?validAt=*&${LATER}&limit=2&include=facts&factsPerEntity=1`);
    expect(firsts.facts.facts.map((f: any) => f.factId)).toEqual(['f-ann', 'f-bob']);
    expect(firsts.facts.counts).toEqual({ ann: 2, bob: 1 });
    expect(firsts.facts.next).toBeNull();
    const { cut: _c, source: _s, ...namedByFirsts } = await both(`facts?validAt=*&${LATER}&src=ann&src=bob&limit=1000&include=entities`);
    const kept = namedByFirsts.facts.filter((f: any) => ['f-ann', 'f-bob'].includes(f.factId));
    const keptIds = new Set(kept.flatMap((f: any) => (typeof f.dst === 'string' ? [f.src, f.dst] : [f.src])));
    expect(firsts.facts.entities).toEqual(namedByFirsts.entities.filter((e: any) => keptIds.has(e.entityId)));
    expect(page.facts.counts).toBeUndefined();
    for (const bad of ['factsPerEntity=1', 'include=facts&factsPerEntity=0', 'include=facts&factsPerEntity=x']) {
      const answer = await t.get(`${M}/entities?${bad}`);
      expect([bad, answer.status, answer.body.error.details[0].path]).toEqual([bad, 400, 'factsPerEntity']);
    }
    expect((await both(`entities?validAt=*&recordedAt=2020-01-01T00:00:00.000Z&include=facts`)).facts).toEqual({
      facts: [],
      next: null,
      entities: [],
    });
    const refused = await t.get(`${M}/facts?src=${Array.from({ length: 101 }, (_, i) => `e${i}`).join('&src=')}`);
    expect([refused.status, refused.body.error.details[0].path]).toEqual([400, 'src']);
  });

  it('lists the events about an entity: taking part, or in their evidence; and pages them', async () => {
    const about = async (entity: string) => (await both(`events?validAt=*&recordedAt=${T1}&entity=${entity}`)).events.map((e: any) => e.eventId);
    expect(await about('ann')).toEqual(['ev-party', 'ev-walk']); // the host; f-eve: eve knows ann
    expect(await about('cy')).toEqual(['ev-party']); // f-cy: cy knows dee
    expect(await about('dee')).toEqual(['ev-party']); // f-cy is to dee
    expect(await about('eve')).toEqual(['ev-walk']);
    expect(await about('bob')).toEqual([]);
    expect(await walk(`events?validAt=*&recordedAt=${T1}`, 'events', 1)).toEqual([['ev-party'], ['ev-walk']]);
  });

  it('lists the episodes of a cut, each with only its visible events, a page at a time', async () => {
    const at = async (recordedAt: string) => (await both(`episodes?validAt=*&recordedAt=${recordedAt}`)).episodes;
    expect(await at(T0)).toEqual([]);
    expect(await at(T1)).toEqual([
      { episodeId: 'ep-1', title: 'the party', window: { from: T0, to: null }, events: ['ev-party'], recordedFrom: T1 },
      { episodeId: 'ep-2', title: 'both', window: { from: T0, to: null }, events: ['ev-walk', 'ev-party'], recordedFrom: T1 },
    ]);
    expect((await at(T2)).map((e: any) => e.events)).toEqual([['ev-party'], ['ev-party']]);
    expect(await walk(`episodes?validAt=*&recordedAt=${T1}`, 'episodes', 1)).toEqual([['ep-1'], ['ep-2']]);
    // With a validAt, an episode is listed only if its window holds it.
    expect((await both(`episodes?validAt=2023-06-01T00:00:00.000Z&recordedAt=${T1}`)).episodes).toEqual([]);
  });

  it('reads entities by id, each as its canonical entity', async () => {
    const named = await both(`entities?validAt=2024-06-01T00:00:00.000Z&${LATER}&ids=dee&ids=ann&ids=nobody`);
    expect(named.entities.map((e: any) => [e.entityId, e.names])).toEqual([
      ['ann', ['ANN']],
      ['cy', ['CY', 'DEE']],
    ]);
  });

  it('pages the changes of a window by whole record instants, each page the answer for its own window', async () => {
    const all = await t.get(`${M}/changes?from=${T0}&to=2024-06-01T00:00:00.000Z&minPosition=${position}`);
    expect(all.body.changes.map((c: any) => c.at)).toEqual([...Array(6).fill(T0), T2]);
    // T0 holds six changes: the first page takes the instant whole, beyond its limit of two.
    const first = await t.get(`${M}/changes?from=${T0}&to=2024-06-01T00:00:00.000Z&limit=2&minPosition=${position}`);
    expect([first.body.changes.length, first.body.to, first.body.next]).toEqual([6, T2, T2]);
    // Its window ends before T2, so the version T2 closes is still open in it.
    expect(first.body.changes.find((c: any) => c.version.factId === 'f-eve').version.recordedTo).toBeNull();
    const second = await t.get(`${M}/changes?from=${first.body.next}&to=2024-06-01T00:00:00.000Z&limit=2&minPosition=${position}`);
    expect([second.body.changes.map((c: any) => [c.change, c.version.factId]), second.body.next]).toEqual([[['closed', 'f-eve']], null]);
    // With the entities the versions name, as at the answer's end (T2: dee is cy's by then).
    const named = await t.get(`${M}/changes?from=${T0}&to=2024-06-01T00:00:00.000Z&limit=2&include=entities&minPosition=${position}`);
    expect({ ...named.body, entities: undefined }).toEqual(first.body);
    expect(named.body.entities.map((e: any) => [e.entityId, e.names])).toEqual([
      ['ann', ['ANN']],
      ['bob', ['BOB']],
      ['cy', ['CY', 'DEE']],
      ['eve', ['EVE']],
    ]);
    expect((await t.get(`${M}/changes?from=${T0}&include=facts`)).status).toBe(400);
    expect((await t.get(`${M}/changes?from=${T0}&limit=0`)).status).toBe(400);
  });

  it('says what the caller may do: without keys, everything', async () => {
    const access = await t.get('/v1/access');
    expect([access.status, access.body]).toEqual([200, { accessControl: false, keyId: null, access: 'admin', memories: ['*'] }]);
    expect((await t.get('/v1/access?x=1')).status).toBe(400);
  });
});
