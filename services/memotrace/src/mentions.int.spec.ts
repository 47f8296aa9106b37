import { PAGE, errorResponse, mentionView, mentionsResponse } from '@memotrace/contracts';
import { type TestService, startTestService } from './testing/test-service';

/**
 * `GET /v1/memories/{memoryId}/mentions?docId=` and `GET …/mentions/{mentionId}`: a document's mentions
 * (SPEC §3 RECORD_MENTION; §5.1: a session's turns, docId = sessionId) in document order, in a cut, a page
 * at a time, from the read models and by exact replay alike; and one mention.
 */
const MON = '2024-05-06T09:00:00.000Z';
const TUE = '2024-05-07T09:00:00.000Z';
const AT = '2024-05-06T08:00:00.000Z';

const turn = (mentionId: string, docId: string, recordedAt: string, extra: Record<string, unknown> = {}) => ({
  op: 'RECORD_MENTION',
  mentionId,
  docId,
  speaker: 'Caroline',
  text: `said ${mentionId}`,
  occurredAt: AT,
  recordedAt,
  ...extra,
});

let t: TestService;
let position: number;
beforeAll(async () => {
  t = await startTestService();
  // Monday: D1:10 and D1:9 (same occurredAt: natural order decides), D1:2 earlier; D2:1 belongs to another session.
  const monday = await t.commands('talk', [
    turn('D1:10', 'session-1', MON),
    turn('D1:9', 'session-1', MON),
    turn('D1:2', 'session-1', MON, { occurredAt: '2024-05-06T07:00:00Z' }),
    turn('D2:1', 'session-2', MON),
  ]);
  expect(monday.status).toBe(200);
  // Tuesday: D1:1 without occurredAt (last), D1:11 after D1:10.
  const tuesday = await t.commands('talk', [
    turn('D1:1', 'session-1', TUE, { occurredAt: undefined, speaker: undefined }),
    turn('D1:11', 'session-1', TUE),
  ]);
  expect(tuesday.status).toBe(200);
  position = tuesday.body.position;
});
afterAll(() => t?.stop());

const list = async (query: string) => {
  const response = await t.get(`/v1/memories/talk/mentions?${query}`);
  return { status: response.status, body: response.body };
};
const ids = (body: { mentions: { mentionId: string }[] }) => body.mentions.map((m) => m.mentionId);

describe("a document's mentions", () => {
  it.each(['projection', 'replay'])('are listed in document order, with their cut and source (%s)', async (consistency) => {
    const { status, body } = await list(`docId=session-1&consistency=${consistency}&minPosition=${position}`);
    expect(status).toBe(200);
    const parsed = mentionsResponse.parse(body);
    expect(parsed).toMatchObject({ source: consistency, docId: 'session-1', next: null });
    expect(ids(parsed)).toEqual(['D1:2', 'D1:9', 'D1:10', 'D1:11', 'D1:1']);
    expect(parsed.mentions[0]).toEqual({
      mentionId: 'D1:2',
      docId: 'session-1',
      text: 'said D1:2',
      speaker: 'Caroline',
      occurredAt: '2024-05-06T07:00:00.000Z',
      recordedFrom: MON,
    });
    expect(parsed.mentions[4]).toMatchObject({ mentionId: 'D1:1', speaker: null, occurredAt: null, recordedFrom: TUE });
    // Without a cut, both times are the request's.
    expect(parsed.cut.validAt).toBe(parsed.cut.recordedAt);
    expect(Date.parse(parsed.cut.recordedAt)).toBeGreaterThan(Date.parse(TUE));
  });

  it('at a past record time, shows only what was recorded by then; validAt filters none (mentions have no valid time)', async () => {
    for (const consistency of ['projection', 'replay']) {
      const monday = await list(`docId=session-1&recordedAt=${MON}&consistency=${consistency}`);
      expect(monday.body.cut.recordedAt).toBe(MON); // validAt is still the request time: each time defaults on its own
      expect(ids(monday.body)).toEqual(['D1:2', 'D1:9', 'D1:10']);
      const before = await list(`docId=session-1&recordedAt=2024-05-06T08:59:59.999Z&consistency=${consistency}`);
      expect(ids(before.body)).toEqual([]);
      const anyValidity = await list(`docId=session-1&recordedAt=${MON}&validAt=*&consistency=${consistency}`);
      expect(anyValidity.body.cut).toEqual({ validAt: '*', recordedAt: MON });
      const longAgo = await list(`docId=session-1&recordedAt=${MON}&validAt=1990-01-01T00:00:00Z&consistency=${consistency}`);
      expect(ids(longAgo.body)).toEqual(ids(monday.body));
    }
  });

  it('answers an unknown document with no mentions, and another document with its own', async () => {
    expect(await list('docId=session-9')).toMatchObject({ status: 200, body: { docId: 'session-9', mentions: [], next: null } });
    expect(ids((await list('docId=session-2')).body)).toEqual(['D2:1']);
  });

  it.each(['projection', 'replay'])("pages: each page starts after the previous one's next, in one cut (%s)", async (consistency) => {
    const first = await list(`docId=session-1&limit=2&consistency=${consistency}`);
    expect([ids(first.body), first.body.next]).toEqual([['D1:2', 'D1:9'], 'D1:9']);
    const cut = `recordedAt=${first.body.cut.recordedAt}&consistency=${consistency}`;
    const second = await list(`docId=session-1&limit=2&after=${first.body.next}&${cut}`);
    expect([ids(second.body), second.body.next]).toEqual([['D1:10', 'D1:11'], 'D1:11']);
    const third = await list(`docId=session-1&limit=2&after=${second.body.next}&${cut}`);
    expect([ids(third.body), third.body.next]).toEqual([['D1:1'], null]);
    // A page that ends the document exactly has no next.
    expect((await list(`docId=session-1&limit=5&${cut}`)).body.next).toBeNull();
    expect((await list(`docId=session-1&limit=4&${cut}`)).body.next).toBe('D1:11');
  });

  it('holds at most the default page without a limit', async () => {
    const many = Array.from({ length: PAGE.default + 1 }, (_, i) => turn(`L:${i + 1}`, 'long', TUE));
    expect((await t.commands('talk', many)).status).toBe(200);
    const page = await list('docId=long');
    expect(page.body.mentions).toHaveLength(PAGE.default);
    expect(page.body.next).toBe(`L:${PAGE.default}`);
    const rest = await list(`docId=long&after=${page.body.next}&recordedAt=${page.body.cut.recordedAt}`);
    expect([ids(rest.body), rest.body.next]).toEqual([[`L:${PAGE.default + 1}`], null]);
  });

  it.each([
    ['docId is required', '', 'docId'],
    ['limit below 1', 'docId=session-1&limit=0', 'limit'],
    ['limit above the maximum', `docId=session-1&limit=${PAGE.max + 1}`, 'limit'],
    ['an unknown parameter', 'docId=session-1&offset=2', 'offset'],
    ['after names no mention of the document', 'docId=session-1&after=D2:1', 'after'],
    ['after names a mention not yet recorded at the record time', `docId=session-1&after=D1:11&recordedAt=${MON}`, 'after'],
  ])('refuses a bad request: %s', async (_label, query, path) => {
    const { status, body } = await list(query);
    expect(status).toBe(400);
    expect(errorResponse.parse(body).error).toMatchObject({ code: 'INVALID_REQUEST', details: [expect.objectContaining({ path })] });
  });
});

describe('one mention', () => {
  const one = async (mentionId: string, query = '') => {
    const response = await t.get(`/v1/memories/talk/mentions/${encodeURIComponent(mentionId)}${query}`);
    return { status: response.status, body: response.body };
  };

  it.each(['projection', 'replay'])('is answered as recorded (%s)', async (consistency) => {
    const { status, body } = await one('D1:9', `?consistency=${consistency}`);
    expect(status).toBe(200);
    expect(mentionView.parse(body)).toEqual({
      mentionId: 'D1:9',
      docId: 'session-1',
      text: 'said D1:9',
      speaker: 'Caroline',
      occurredAt: AT,
      recordedFrom: MON,
    });
  });

  it.each(['projection', 'replay'])('is 404 UNKNOWN_MENTION before its record time, and when no mention has the id (%s)', async (consistency) => {
    expect((await one('D1:11', `?recordedAt=${MON}&consistency=${consistency}`)).body.error.code).toBe('UNKNOWN_MENTION');
    expect((await one('D1:11', `?recordedAt=${TUE}&consistency=${consistency}`)).status).toBe(200);
    const missing = await one('D9:9', `?consistency=${consistency}`);
    expect(missing.status).toBe(404);
    expect(errorResponse.parse(missing.body).error).toMatchObject({ code: 'UNKNOWN_MENTION', message: expect.stringContaining('D9:9') });
  });

  it('refuses an unknown parameter', async () => {
    expect((await one('D1:9', `?validAt=${MON}`)).status).toBe(400);
  });
});

describe('a memory without commands', () => {
  it.each([
    ['list', '/v1/memories/ghost/mentions?docId=session-1'],
    ['list (replay)', '/v1/memories/ghost/mentions?docId=session-1&consistency=replay'],
    ['one', '/v1/memories/ghost/mentions/D1:1'],
    ['one (replay)', '/v1/memories/ghost/mentions/D1:1?consistency=replay'],
  ])('is 404 UNKNOWN_MEMORY (%s), and the read creates no memory', async (_label, path) => {
    const response = await t.get(path);
    expect(response.status).toBe(404);
    expect(errorResponse.parse(response.body).error.code).toBe('UNKNOWN_MEMORY');
    expect((await t.get('/v1/memories')).body.memories.map((m: { memoryId: string }) => m.memoryId)).toEqual(['talk']);
  });
});
