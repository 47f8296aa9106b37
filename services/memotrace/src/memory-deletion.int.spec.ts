import { hashApiKey, parseApiKeys } from '@memotrace/http-kit';
import { conceptEmbeddings } from '@memotrace/search-index';
import pg from 'pg';
import { MONDAY } from './testing/alice-joins-acme';
import { type TestService, startTestService } from './testing/test-service';

/**
 * SPEC §5.2: the `admin` key level (ERASE and DELETE need it when keys are configured), and
 * `DELETE /v1/memories/{memoryId}`: the memory's log, read models, search items and vectors go, its
 * id then names an empty memory (404 UNKNOWN_MEMORY), and a write starts it again from position 1.
 */
const TOKENS = { writer: 'mt_writer', reader: 'mt_reader', admin: 'mt_admin', otherAdmin: 'mt_admin-elsewhere' };
const keys = parseApiKeys(
  JSON.stringify([
    { id: 'agent', hash: hashApiKey(TOKENS.writer), memories: ['*'], access: 'write' },
    { id: 'auditor', hash: hashApiKey(TOKENS.reader), memories: ['*'], access: 'read' },
    { id: 'dpo', hash: hashApiKey(TOKENS.admin), memories: ['*'], access: 'admin' },
    { id: 'dpo-b', hash: hashApiKey(TOKENS.otherAdmin), memories: ['other'], access: 'admin' },
  ]),
);
const T1 = '2024-06-01T00:00:00.000Z';

let svc: TestService;
let db: pg.Pool;
beforeAll(async () => {
  // Vectors too: the deletion must take the memory's search items and the vectors only they used.
  svc = await startTestService(
    { apiKeys: keys },
    {
      embeddings: conceptEmbeddings([
        ['acme', 'company'],
        ['started', 'joined'],
      ]),
    },
  );
  db = new pg.Pool({ connectionString: svc.service.databaseUrl, max: 2 });
}, 60_000);
afterAll(async () => {
  await db?.end();
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

const write = (memoryId: string, commands: readonly unknown[], token = TOKENS.writer) =>
  call('POST', `/v1/memories/${memoryId}/commands`, token, { commands });
const exportOf = async (memoryId: string) => (await call('GET', `/v1/memories/${memoryId}/export`, TOKENS.reader)).text;
const rows = async (sql: string, values: unknown[]) => Number((await db.query<{ n: string }>(sql, values)).rows[0]!.n);
/** Every row of the memory in the database: log (records and tag entries), read models, search items. */
async function rowsOf(memoryId: string) {
  const { rows: tables } = await db.query<{ table_name: string }>(
    `SELECT table_name FROM information_schema.columns WHERE column_name = 'memory_id' AND table_schema = 'public' AND table_name LIKE 'rm\\_%'`,
  );
  let readModels = 0;
  for (const { table_name } of tables) readModels += await rows(`SELECT count(*) AS n FROM ${table_name} WHERE memory_id = $1`, [memoryId]);
  return {
    log: await rows('SELECT count(*) AS n FROM mt_events WHERE stream_id = $1', [`memory-${memoryId}`]),
    tags: await rows('SELECT count(*) AS n FROM mt_event_tags WHERE starts_with(tag, $1)', [`fact:${memoryId}:`]),
    readModels,
    searchItems: await rows('SELECT count(*) AS n FROM si_items WHERE memory_id = $1', [memoryId]),
    keys:
      (await rows('SELECT count(*) AS n FROM mt_content_keys WHERE memory_id = $1', [memoryId])) +
      (await rows('SELECT count(*) AS n FROM mt_subject_keys WHERE memory_id = $1', [memoryId])),
  };
}
async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('admin keys: ERASE needs one when keys are configured', () => {
  beforeAll(async () => {
    expect((await write('erasing', MONDAY)).status).toBe(200);
  });
  const erase = { op: 'ERASE', commandId: 'erase-1', subject: { entityId: 'alice' }, reason: 'data subject request' };

  it('a write or read key gets 403 for a batch with an ERASE, and nothing of the batch is written', async () => {
    const before = await exportOf('erasing');
    for (const token of [TOKENS.writer, TOKENS.reader]) {
      const refused = await write('erasing', [{ op: 'UPSERT_ENTITY', commandId: 'innocent', entityId: 'zoe', name: 'Zoe' }, erase], token);
      expect(refused.status).toBe(403);
      expect(refused.body.error.code).toBe('FORBIDDEN');
    }
    const writer = await write('erasing', [erase]);
    expect(writer.body.error.message).toMatch(/"agent" has write access: ERASE needs an admin key/);
    // An import holding an ERASE erases too.
    const line = JSON.stringify({ ...erase, recordedAt: T1 });
    expect((await call('POST', '/v1/memories/erasing-copy/import', TOKENS.writer, line + '\n', 'application/x-ndjson')).status).toBe(403);
    expect(await exportOf('erasing')).toBe(before);
    expect((await call('GET', '/v1/memories/erasing-copy/facts', TOKENS.reader)).status).toBe(404);
  });

  it('an admin key may erase, and write', async () => {
    expect((await write('erasing', [{ op: 'UPSERT_ENTITY', entityId: 'zed', name: 'Zed' }], TOKENS.admin)).status).toBe(200);
    const erased = await write('erasing', [erase], TOKENS.admin);
    expect(erased.status).toBe(200);
    expect(erased.body.results[0]).toMatchObject({ commandId: 'erase-1', status: 'applied' });
    // An admin key of another memory is no admin here.
    expect((await write('erasing', [{ ...erase, commandId: 'erase-2' }], TOKENS.otherAdmin)).status).toBe(403);
  });
});

describe('DELETE /v1/memories/{memoryId}', () => {
  const mention = (mentionId: string, text: string) => ({ op: 'RECORD_MENTION', mentionId, docId: 'chat-9', text, speaker: 'Ann', occurredAt: T1 });

  beforeAll(async () => {
    expect((await write('doomed', MONDAY)).status).toBe(200);
    // A text two memories share keeps its vector; the doomed memory's own text loses it.
    expect(
      (await write('doomed', [mention('m-shared', 'we both joined the company'), mention('m-own', 'only the doomed started this')])).status,
    ).toBe(200);
    expect((await write('other', [mention('m-shared', 'we both joined the company')], TOKENS.admin)).status).toBe(200);
    // An erasure leaves a tombstone among the memory's keys.
    expect(
      (await write('doomed', [mention('m-gone', 'said once'), { op: 'ERASE', subject: { mentionId: 'm-gone' }, reason: 'asked' }], TOKENS.admin))
        .status,
    ).toBe(200);
    await until(
      () => rowsOf('doomed'),
      (r) => r.searchItems >= 6,
    );
    await until(
      () => rowsOf('other'),
      (r) => r.searchItems >= 1,
    );
    // Warm every cache of the memory: replay's log, the search corpus.
    expect((await call('GET', '/v1/memories/doomed/facts?consistency=replay', TOKENS.reader)).body.facts).toHaveLength(1);
    expect((await call('POST', '/v1/memories/doomed/search', TOKENS.reader, { query: 'Acme' })).body.items.length).toBeGreaterThan(0);
  }, 60_000);

  it('needs an admin key of the memory: a write or read key gets 403, no key 401, and nothing is deleted', async () => {
    const before = await exportOf('doomed');
    for (const token of [TOKENS.writer, TOKENS.reader, TOKENS.otherAdmin]) {
      const refused = await call('DELETE', '/v1/memories/doomed', token);
      expect(refused.status).toBe(403);
      expect(refused.body.error.code).toBe('FORBIDDEN');
    }
    expect((await call('DELETE', '/v1/memories/doomed', TOKENS.writer)).body.error.message).toMatch(/admin key/);
    expect((await call('DELETE', '/v1/memories/doomed', undefined)).status).toBe(401);
    expect(await exportOf('doomed')).toBe(before);
    expect((await rowsOf('doomed')).log).toBeGreaterThan(0);
  });

  it('removes the log, the read models, the search items and their own vectors; the memory is unknown after', async () => {
    const before = await rowsOf('doomed');
    expect(before.log).toBe(MONDAY.length + 4);
    expect(before.keys).toBeGreaterThan(1);
    expect(before.readModels).toBeGreaterThan(0);
    const sharedHash = (await db.query<{ text_hash: string }>(`SELECT text_hash FROM si_items WHERE memory_id = 'other'`)).rows[0]!.text_hash;
    // Texts no other memory has (MONDAY's are in 'erasing' too): their vectors go.
    const ownHashes = (
      await db.query<{ text_hash: string }>(
        `SELECT text_hash FROM si_items WHERE memory_id = 'doomed' EXCEPT SELECT text_hash FROM si_items WHERE memory_id <> 'doomed'`,
      )
    ).rows.map((r) => r.text_hash);
    expect(ownHashes.length).toBeGreaterThanOrEqual(1); // "only the doomed started this" at least
    expect(await rows('SELECT count(*) AS n FROM si_vectors WHERE text_hash = ANY($1)', [ownHashes])).toBe(ownHashes.length);

    const deleted = await call('DELETE', '/v1/memories/doomed', TOKENS.admin);
    expect(deleted).toMatchObject({ status: 200, body: { memoryId: 'doomed', deleted: true, records: before.log } });

    expect(await rowsOf('doomed')).toEqual({ log: 0, tags: 0, readModels: 0, searchItems: 0, keys: 0 });
    expect(await rows('SELECT count(*) AS n FROM si_vectors WHERE text_hash = ANY($1)', [ownHashes])).toBe(0);
    expect(await rows('SELECT count(*) AS n FROM si_vectors WHERE text_hash = $1', [sharedHash])).toBe(1);
    for (const [method, path, body] of [
      ['GET', 'facts'],
      ['GET', 'facts?consistency=replay'],
      ['GET', 'facts/alice-acme/history'],
      ['GET', 'facts/alice-acme/audit'],
      ['GET', 'entities/alice'],
      ['GET', 'events?validAt=*&consistency=replay'],
      ['GET', 'export'],
      ['POST', 'search', { query: 'Acme' }],
    ] as const) {
      const read = await call(method, `/v1/memories/doomed/${path}`, TOKENS.reader, body);
      expect([path, read.status, read.body?.error?.code]).toEqual([path, 404, 'UNKNOWN_MEMORY']);
    }
    expect((await call('GET', '/v1/memories', TOKENS.reader)).body.memories.map((m: { memoryId: string }) => m.memoryId)).not.toContain('doomed');
    // Nothing left to delete.
    expect(await call('DELETE', '/v1/memories/doomed', TOKENS.admin)).toMatchObject({ status: 404, body: { error: { code: 'UNKNOWN_MEMORY' } } });
    // Other memories keep everything.
    expect((await rowsOf('other')).log).toBe(1);
    expect((await call('GET', '/v1/memories/erasing/facts?validAt=*', TOKENS.reader)).status).toBe(200);
  });

  it('a later write starts the memory again from position 1, without a trace of the deleted one (caches included)', async () => {
    const fresh = await write('doomed', [
      { op: 'UPSERT_ENTITY', commandId: 'again-1', entityId: 'bob', name: 'Bob' },
      { op: 'UPSERT_ENTITY', commandId: 'again-2', entityId: 'oslo', name: 'Oslo' },
      { op: 'UPSERT_EDGE', commandId: 'again-3', factId: 'bob-oslo', src: 'bob', rel: 'lives_in', dst: 'oslo' },
    ]);
    expect(fresh.status).toBe(200);
    expect(fresh.body.position).toBe(3);
    // alice no longer exists: a fact naming her is refused (the command side's cached state went with the log).
    const stale = await write('doomed', [{ op: 'UPSERT_EDGE', src: 'alice', rel: 'works_at', dst: 'bob' }]);
    expect(stale.body.error?.code).toBe('UNKNOWN_ENTITY');
    for (const consistency of ['projection', 'replay']) {
      const facts = await call('GET', `/v1/memories/doomed/facts?validAt=*&consistency=${consistency}&minPosition=3`, TOKENS.reader);
      expect([consistency, facts.body.facts.map((f: { factId: string }) => f.factId)]).toEqual([consistency, ['bob-oslo']]);
    }
    const search = await call('POST', '/v1/memories/doomed/search', TOKENS.reader, { query: 'Acme Alice started' });
    expect(search.body.items.map((item: { id: string }) => item.id)).not.toEqual(expect.arrayContaining(['m-own']));
    expect(JSON.stringify(search.body)).not.toMatch(/Acme|Alice|doomed started/);
    expect((await call('GET', '/v1/memories/doomed/verify', TOKENS.reader)).body).toMatchObject({ differences: [] });
    // The deleted memory's erasures went with it: erasing the same subject again in the new one erases.
    expect(
      (await write('doomed', [mention('m-gone', 'said again'), { op: 'ERASE', subject: { mentionId: 'm-gone' }, reason: 'asked' }], TOKENS.admin))
        .status,
    ).toBe(200);
    expect((await call('GET', '/v1/memories/doomed/mentions/m-gone?minPosition=5', TOKENS.reader)).body).toMatchObject({
      text: null,
      speaker: null,
      erased: true,
    });
  });

  it('an export taken before the deletion imports into the emptied memory again (its commandIds are new there)', async () => {
    const old = await exportOf('other');
    expect((await call('DELETE', '/v1/memories/other', TOKENS.otherAdmin)).status).toBe(200);
    const imported = await call('POST', '/v1/memories/other/import', TOKENS.admin, old, 'application/x-ndjson');
    expect(imported).toMatchObject({ status: 200, body: { imported: 1, position: 1 } });
    expect(await exportOf('other')).toBe(old);
  });
});
