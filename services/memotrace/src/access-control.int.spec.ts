import { hashApiKey, parseApiKeys } from '@memotrace/http-kit';
import { readConfig } from '@memotrace/runtime';
import pino from 'pino';
import { startMemoTrace } from './app';
import { type TestService, startTestService } from './testing/test-service';

/** Issue 6: API keys scoped to memories and to read/write, through HTTP. */
const TOKENS = { a: 'mt_key-for-a', aRead: 'mt_read-key-for-a', b: 'mt_key-for-b', admin: 'mt_admin-key' };
const keys = parseApiKeys(
  JSON.stringify([
    { id: 'agent-a', hash: hashApiKey(TOKENS.a), memories: ['mem-a'], access: 'write' },
    { id: 'reader-a', hash: hashApiKey(TOKENS.aRead), memories: ['mem-a'], access: 'read' },
    { id: 'agent-b', hash: hashApiKey(TOKENS.b), memories: ['mem-b'], access: 'write' },
    { id: 'dpo', hash: hashApiKey(TOKENS.admin), memories: ['*'], access: 'admin' },
  ]),
);

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({ apiKeys: keys });
});
afterAll(async () => {
  await svc?.stop();
});

async function call(method: string, path: string, token: string | undefined, body?: unknown, contentType = 'application/json') {
  const headers: Record<string, string> = {};
  if (token !== undefined) headers['authorization'] = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = contentType;
  const response = await fetch(svc.url + path, {
    method,
    headers,
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  let json: any = null;
  try {
    json = JSON.parse(text);
  } catch {
    json = null;
  }
  return { status: response.status, body: json, text };
}

const entity = (commandId: string, entityId: string) => ({
  commands: [{ op: 'UPSERT_ENTITY', commandId, entityId, name: entityId, actor: 'claimed-by-client' }],
});
const exportOf = async (memoryId: string, token: string) => (await call('GET', `/v1/memories/${memoryId}/export`, token)).text;

describe('access control over HTTP', () => {
  beforeAll(async () => {
    expect((await call('POST', '/v1/memories/mem-a/commands', TOKENS.a, entity('a-1', 'alice'))).status).toBe(200);
    expect((await call('POST', '/v1/memories/mem-b/commands', TOKENS.b, entity('b-1', 'bob'))).status).toBe(200);
  });

  it('records the authenticated principal as actor, whatever the client claims', async () => {
    const log = await exportOf('mem-a', TOKENS.a);
    expect(JSON.parse(log.trim().split('\n')[0]!)).toMatchObject({ commandId: 'a-1', actor: 'agent-a' });
  });

  it('a key for memory A can neither read nor write memory B', async () => {
    const before = await exportOf('mem-b', TOKENS.b);
    const attempts = [
      call('POST', '/v1/memories/mem-b/commands', TOKENS.a, entity('a-2', 'mallory')),
      call('POST', '/v1/memories/mem-b/import', TOKENS.a, '', 'application/x-ndjson'),
      call('GET', '/v1/memories/mem-b/facts', TOKENS.a),
      call('GET', '/v1/memories/mem-b/entities/bob', TOKENS.a),
      call('GET', '/v1/memories/mem-b/events', TOKENS.a),
      call('GET', '/v1/memories/mem-b/export', TOKENS.a),
      call('POST', '/v1/memories/mem-b/search', TOKENS.a, { query: 'bob' }),
      call('GET', '/v1/memories/mem-b/facts/x/history', TOKENS.a),
      call('GET', '/v1/memories/mem-b/facts/x/audit', TOKENS.a),
    ];
    for (const response of await Promise.all(attempts)) {
      expect(response.status).toBe(403);
      expect(response.body.error.code).toBe('FORBIDDEN');
    }
    expect(await exportOf('mem-b', TOKENS.b)).toBe(before);
  });

  it('an invalid or missing key changes nothing (401)', async () => {
    const before = await exportOf('mem-a', TOKENS.a);
    for (const token of [undefined, 'mt_wrong', '', TOKENS.a + 'x']) {
      const response = await call('POST', '/v1/memories/mem-a/commands', token, entity('evil-1', 'eve'));
      expect(response.status).toBe(401);
      expect(response.body.error.code).toBe('UNAUTHORIZED');
    }
    expect((await call('GET', '/v1/memories/mem-a/facts', 'mt_wrong')).status).toBe(401);
    expect(await exportOf('mem-a', TOKENS.a)).toBe(before);
  });

  it('a read key can read but not write', async () => {
    const before = await exportOf('mem-a', TOKENS.a);
    expect((await call('GET', '/v1/memories/mem-a/facts', TOKENS.aRead)).status).toBe(200);
    expect((await call('POST', '/v1/memories/mem-a/search', TOKENS.aRead, { query: 'alice' })).status).toBe(200);
    const write = await call('POST', '/v1/memories/mem-a/commands', TOKENS.aRead, entity('r-1', 'rita'));
    expect(write.status).toBe(403);
    expect(write.body.error.code).toBe('FORBIDDEN');
    expect(await exportOf('mem-a', TOKENS.a)).toBe(before);
  });

  it('says what each key may do, to that key only; a wrong or missing key learns nothing (401)', async () => {
    expect((await call('GET', '/v1/access', TOKENS.aRead)).body).toEqual({
      accessControl: true,
      keyId: 'reader-a',
      access: 'read',
      memories: ['mem-a'],
    });
    expect((await call('GET', '/v1/access', TOKENS.a)).body).toEqual({ accessControl: true, keyId: 'agent-a', access: 'write', memories: ['mem-a'] });
    expect((await call('GET', '/v1/access', TOKENS.admin)).body).toEqual({ accessControl: true, keyId: 'dpo', access: 'admin', memories: ['*'] });
    for (const token of [undefined, 'mt_wrong']) {
      const refused = await call('GET', '/v1/access', token);
      expect([refused.status, refused.body.error.code]).toEqual([401, 'UNAUTHORIZED']);
    }
  });

  it('keeps health, readiness, metrics and docs open', async () => {
    for (const path of ['/healthz', '/readyz', '/metrics', '/docs']) expect((await call('GET', path, undefined)).status).toBe(200);
  });
});

describe('without keys', () => {
  it('refuses to listen on a non-loopback host', async () => {
    // Checked before anything starts: no database is opened.
    const config = { ...readConfig({}), host: '0.0.0.0', port: 0, databaseUrl: 'postgres://nowhere.invalid/x' };
    await expect(startMemoTrace(config, pino({ level: 'silent' }))).rejects.toThrow(/refusing to listen on 0.0.0.0 without API keys/);
  });
});
