import { errorResponse, memoriesResponse } from '@memotrace/contracts';
import { hashApiKey, parseApiKeys } from '@memotrace/http-kit';
import { type TestService, startTestService } from './testing/test-service';

/** SPEC §5.0: `GET /v1/memories`, and 404 UNKNOWN_MEMORY for a read of a memory that has no accepted command. */
const T0 = '2024-01-01T00:00:00.000Z';
const T1 = '2024-02-01T00:00:00.000Z';
const T2 = '2024-03-01T00:00:00.000Z';

const seed = (recordedAt: string) => [
  { op: 'UPSERT_ENTITY', entityId: 'bob', name: 'Bob', recordedAt },
  { op: 'UPSERT_ENTITY', entityId: 'paris', name: 'Paris', recordedAt },
  { op: 'UPSERT_EDGE', factId: 'bob-paris', src: 'bob', rel: 'lives_in', dst: 'paris', validFrom: T0, recordedAt },
];

/** Every read of one memory, each as [label, method, path under /v1/memories/{memoryId}, body]. */
const READS: [string, 'GET' | 'POST', string, unknown?][] = [
  ['facts', 'GET', 'facts'],
  ['facts (replay)', 'GET', 'facts?consistency=replay'],
  ['facts (minPosition=1)', 'GET', 'facts?minPosition=1'],
  ['facts (replay, minPosition=1)', 'GET', 'facts?consistency=replay&minPosition=1'],
  ['history', 'GET', 'facts/bob-paris/history'],
  ['audit', 'GET', 'facts/bob-paris/audit'],
  ['entity', 'GET', 'entities/bob'],
  ['entities', 'GET', 'entities?name=Bob'],
  ['entities (replay)', 'GET', 'entities?consistency=replay'],
  ['events', 'GET', 'events?validAt=*'],
  ['events (replay)', 'GET', 'events?validAt=*&consistency=replay'],
  ['mentions', 'GET', 'mentions?docId=session-1'],
  ['mentions (replay)', 'GET', 'mentions?docId=session-1&consistency=replay'],
  ['changes', 'GET', `changes?from=${T0}`],
  ['export', 'GET', 'export'],
  ['verify', 'GET', 'verify'],
  ['search', 'POST', 'search', { query: 'Bob Paris', validAt: '*' }],
];

async function call(url: string, method: string, path: string, options: { token?: string; body?: unknown } = {}) {
  const headers: Record<string, string> = {};
  if (options.token !== undefined) headers['authorization'] = `Bearer ${options.token}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(url + path, { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) });
  const text = await response.text();
  let body: any = null;
  try {
    body = JSON.parse(text);
  } catch {
    body = null;
  }
  return { status: response.status, body, text };
}

describe('memories without access control', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService();
  });
  afterAll(() => t?.stop());

  it('lists no memory on a fresh service, and a read creates none', async () => {
    expect(await call(t.url, 'GET', '/v1/memories')).toMatchObject({ status: 200, body: { memories: [] } });
    expect((await call(t.url, 'GET', '/v1/memories/never/facts')).status).toBe(404);
    expect((await call(t.url, 'GET', '/v1/memories')).body).toEqual({ memories: [] });
  });

  // A rest parameter: the rows without a body have one argument fewer, and Jest would take a fourth parameter for `done`.
  it.each(READS)('%s of a never-written memory is 404 UNKNOWN_MEMORY', async (...[, method, path, body]) => {
    const response = await call(t.url, method, `/v1/memories/ghost/${path}`, { body });
    expect(response.status).toBe(404);
    expect(errorResponse.parse(response.body).error.code).toBe('UNKNOWN_MEMORY');
    expect(response.body.error.message).toContain('ghost');
  });

  it('a bad request to a never-written memory is still 400 (input is checked first)', async () => {
    expect((await call(t.url, 'GET', '/v1/memories/ghost/facts?colour=red')).status).toBe(400);
    expect((await call(t.url, 'GET', '/v1/memories/ghost/export?colour=red')).status).toBe(400);
  });

  it('lists every memory, sorted by memoryId, with its position and latest recordedAt after each write', async () => {
    const b1 = await t.commands('beta', seed(T0));
    expect(b1.status).toBe(200);
    const a1 = await t.commands('alpha', [{ op: 'UPSERT_ENTITY', entityId: 'ann', name: 'Ann', recordedAt: T1 }]);
    expect(a1.status).toBe(200);
    let listed = memoriesResponse.parse((await call(t.url, 'GET', '/v1/memories')).body);
    expect(listed.memories).toEqual([
      { memoryId: 'alpha', position: a1.body.position, latestRecordedAt: T1 },
      { memoryId: 'beta', position: b1.body.position, latestRecordedAt: T0 },
    ]);
    expect(b1.body.position).toBe(3);
    expect(a1.body.position).toBe(1);

    // A later write to beta moves its position and latest recordedAt; a duplicate writes nothing and moves neither.
    const b2 = await t.commands('beta', [{ op: 'UPSERT_ENTITY', commandId: 'carol-1', entityId: 'carol', name: 'Carol', recordedAt: T2 }]);
    expect(b2.status).toBe(200);
    const again = await t.commands('beta', [{ op: 'UPSERT_ENTITY', commandId: 'carol-1', entityId: 'carol', name: 'Carol', recordedAt: T2 }]);
    expect(again.body.results[0].status).toBe('duplicate');
    listed = memoriesResponse.parse((await call(t.url, 'GET', '/v1/memories')).body);
    expect(listed.memories).toEqual([
      { memoryId: 'alpha', position: 1, latestRecordedAt: T1 },
      { memoryId: 'beta', position: b2.body.position, latestRecordedAt: T2 },
    ]);
    expect(b2.body.position).toBe(4);
    expect(again.body.position).toBe(4);
    // The listed position is a consistency token like a write's: it reads your writes.
    expect((await call(t.url, 'GET', `/v1/memories/beta/facts?minPosition=${listed.memories[1]!.position}`)).status).toBe(200);
  });

  it('refuses an unknown query parameter', async () => {
    const response = await call(t.url, 'GET', '/v1/memories?colour=red');
    expect(response.status).toBe(400);
    expect(response.body.error.details).toEqual([expect.objectContaining({ path: 'colour' })]);
  });

  it('every read of a memory answers once it has a command (and the listing names it)', async () => {
    const written = await t.commands('ghost', seed(T0));
    expect(written.status).toBe(200);
    for (const [label, method, path, body] of READS) {
      const response = await call(t.url, method, `/v1/memories/ghost/${path}`, { body });
      expect([label, response.status]).toEqual([label, 200]);
    }
    // In an existing memory, what is missing is named by its own code again.
    expect((await call(t.url, 'GET', '/v1/memories/ghost/facts/nope/history')).body.error.code).toBe('UNKNOWN_FACT');
    expect((await call(t.url, 'GET', '/v1/memories/ghost/facts/nope/audit')).body.error.code).toBe('UNKNOWN_FACT');
    expect((await call(t.url, 'GET', '/v1/memories/ghost/entities/nobody')).body.error.code).toBe('UNKNOWN_ENTITY');
    const beyond = await call(t.url, 'GET', '/v1/memories/ghost/facts?minPosition=4');
    expect([beyond.status, beyond.body.error.code]).toEqual([400, 'INVALID_REQUEST']);
    expect((await call(t.url, 'GET', '/v1/memories')).body.memories.map((m: { memoryId: string }) => m.memoryId)).toEqual(['alpha', 'beta', 'ghost']);
  });
});

describe('memories with access control', () => {
  const TOKENS = { a: 'mt_key-a', aRead: 'mt_read-a', ab: 'mt_key-ab', all: 'mt_read-all', empty: 'mt_key-empty' };
  const keys = parseApiKeys(
    JSON.stringify([
      { id: 'writer-a', hash: hashApiKey(TOKENS.a), memories: ['mem-a'], access: 'write' },
      { id: 'reader-a', hash: hashApiKey(TOKENS.aRead), memories: ['mem-a'], access: 'read' },
      { id: 'writer-ab', hash: hashApiKey(TOKENS.ab), memories: ['mem-b', 'mem-c', 'mem-a'], access: 'write' },
      { id: 'reader-all', hash: hashApiKey(TOKENS.all), memories: ['*'], access: 'read' },
      { id: 'writer-empty', hash: hashApiKey(TOKENS.empty), memories: ['mem-empty'], access: 'write' },
    ]),
  );
  let t: TestService;
  const list = async (token?: string) => call(t.url, 'GET', '/v1/memories', token === undefined ? {} : { token });
  const write = async (memoryId: string, token: string, recordedAt: string) =>
    call(t.url, 'POST', `/v1/memories/${memoryId}/commands`, {
      token,
      body: { commands: [{ op: 'UPSERT_ENTITY', entityId: `e-${recordedAt}`, name: 'E', recordedAt }] },
    });

  beforeAll(async () => {
    t = await startTestService({ apiKeys: keys });
    for (const [memoryId, token, at] of [
      ['mem-b', TOKENS.ab, T0],
      ['mem-a', TOKENS.a, T0],
      ['mem-a', TOKENS.ab, T1],
      ['mem-d', TOKENS.empty, T0], // refused: not its memory
    ] as const) {
      const response = await write(memoryId, token, at);
      expect(response.status).toBe(memoryId === 'mem-d' ? 403 : 200);
    }
  });
  afterAll(() => t?.stop());

  it('lists only the memories the key may read that exist; `*` lists all', async () => {
    const a = { memoryId: 'mem-a', position: 2, latestRecordedAt: T1 };
    const b = { memoryId: 'mem-b', position: 1, latestRecordedAt: T0 };
    expect(memoriesResponse.parse((await list(TOKENS.a)).body).memories).toEqual([a]);
    expect((await list(TOKENS.aRead)).body.memories).toEqual([a]);
    // Scoped to mem-c too, which has no command: not listed.
    expect((await list(TOKENS.ab)).body.memories).toEqual([a, b]);
    expect((await list(TOKENS.all)).body.memories).toEqual([a, b]);
    expect(await list(TOKENS.empty)).toMatchObject({ status: 200, body: { memories: [] } });
  });

  it('needs a valid key (401), like every /v1 route', async () => {
    for (const response of [await list(), await list('mt_wrong')]) {
      expect(response.status).toBe(401);
      expect(response.body.error.code).toBe('UNAUTHORIZED');
    }
  });

  it('a read of a memory the key may read but that does not exist is 404; one outside its scope stays 403', async () => {
    const unknown = await call(t.url, 'GET', '/v1/memories/mem-c/facts', { token: TOKENS.ab });
    expect([unknown.status, unknown.body.error.code]).toEqual([404, 'UNKNOWN_MEMORY']);
    const forbidden = await call(t.url, 'GET', '/v1/memories/mem-c/facts', { token: TOKENS.a });
    expect([forbidden.status, forbidden.body.error.code]).toEqual([403, 'FORBIDDEN']);
    expect((await call(t.url, 'GET', '/v1/memories/mem-a/facts', { token: TOKENS.aRead })).status).toBe(200);
  });
});
