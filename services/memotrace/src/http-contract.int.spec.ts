import { connect } from 'node:net';
import { type TestService, startTestService } from './testing/test-service';

/** SPEC §4 through HTTP: every error code, atomic batches, idempotency, edges. */
const T0 = '2024-01-01T00:00:00.000Z';
const T1 = '2024-02-01T00:00:00.000Z';
const T2 = '2024-03-01T00:00:00.000Z';

describe('HTTP contract', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService();
    const seeded = await t.commands('contract', [
      { op: 'UPSERT_ENTITY', entityId: 'bob', name: 'Bob', recordedAt: T0 },
      { op: 'UPSERT_ENTITY', entityId: 'paris', name: 'Paris', recordedAt: T0 },
      { op: 'UPSERT_EDGE', factId: 'bob-paris', src: 'bob', rel: 'lives_in', dst: 'paris', validFrom: T0, recordedAt: T0 },
      { op: 'UPSERT_EDGE', factId: 'bob-old', src: 'bob', rel: 'likes', dst: { literal: 'tea' }, validFrom: T0, recordedAt: T0 },
      { op: 'ARCHIVE_EDGE', factId: 'bob-old', recordedAt: T0 },
    ]);
    expect(seeded.status).toBe(200);
  });
  afterAll(() => t.stop());

  /** The number of commands in a memory's log: 0 for a memory that has none (its export is 404 UNKNOWN_MEMORY, SPEC §5.0). */
  const logLength = async (memoryId: string) => {
    const exported = await t.get(`/v1/memories/${memoryId}/export`);
    if (exported.status === 404 && exported.body?.error?.code === 'UNKNOWN_MEMORY') return 0;
    return exported.text.split('\n').filter(Boolean).length;
  };

  it.each([
    ['UNKNOWN_ENTITY', 404, { op: 'UPSERT_EDGE', src: 'nobody', rel: 'knows', dst: 'bob' }],
    ['UNKNOWN_FACT', 404, { op: 'ARCHIVE_EDGE', factId: 'no-such-fact' }],
    ['UNKNOWN_FACT', 404, { op: 'UPSERT_EVENT', summary: 's', includesFacts: ['no-such-fact'], timeSpan: { from: T0 } }],
    ['FACT_NOT_OPEN', 409, { op: 'RETRO_CORRECT', factId: 'bob-old', validTo: T2 }],
    ['FACT_CONFLICT', 409, { op: 'UPSERT_EDGE', factId: 'bob-paris', src: 'bob', rel: 'lives_in', dst: 'bob' }],
    ['INVALID_INTERVAL', 409, { op: 'RETRO_CORRECT', factId: 'bob-paris', validTo: '2023-01-01T00:00:00Z' }],
    ['RECORD_TIME_REGRESSION', 409, { op: 'UPSERT_ENTITY', name: 'Late', recordedAt: '2023-01-01T00:00:00Z' }],
    ['INVALID_REQUEST', 400, { op: 'RETRO_CORRECT', factId: 'bob-paris', validFrom: T2, validTo: T1 }],
    ['INVALID_REQUEST', 400, { op: 'UPSERT_ENTITY', name: 'X', colour: 'red' }],
    ['INVALID_REQUEST', 400, { op: 'NOPE' }],
    ['INVALID_REQUEST', 400, { op: 'UPSERT_ENTITY', name: 'X', recordedAt: '2024-01-01T00:00:00' }],
    ['INVALID_REQUEST', 400, { op: 'UPSERT_ENTITY', name: 'X', recordedAt: '2024-01-01T00:00:00.0001Z' }],
  ])('%s (%i) writes nothing, even after a valid command in the same batch', async (code, status, bad) => {
    const before = await logLength('contract');
    const response = await t.commands('contract', [{ op: 'UPSERT_ENTITY', entityId: 'carol', name: 'Carol' }, bad]);
    expect(response.status).toBe(status);
    expect(response.body.error.code).toBe(code);
    expect(typeof response.body.error.message).toBe('string');
    expect(await logLength('contract')).toBe(before);
  });

  it('reports per-field details for bad input', async () => {
    const response = await t.commands('contract', [{ op: 'UPSERT_EDGE', src: 'bob', rel: 'r', dst: 'paris', validFrom: T2, validTo: T1 }]);
    expect(response.status).toBe(400);
    expect(response.body.error.details).toEqual(expect.arrayContaining([expect.objectContaining({ path: 'commands.0.validTo' })]));
  });

  it.each([
    'facts',
    'facts/bob-paris/history',
    'facts/bob-paris/audit',
    'entities/bob',
    'events',
    'episodes',
    `changes?from=${T0}&to=${T1}`,
    'export',
  ])('GET %s refuses an unknown query parameter', async (path) => {
    const response = await t.get(`/v1/memories/contract/${path}${path.includes('?') ? '&' : '?'}colour=red`);
    expect(response.status).toBe(400);
    expect(response.body.error.details).toEqual([expect.objectContaining({ path: 'colour' })]);
  });

  it('rejects an invalid memory id, an empty batch, a batch over 1000 and a non-JSON body', async () => {
    expect((await t.commands('Bad_Memory', [{ op: 'UPSERT_ENTITY', name: 'x' }])).status).toBe(400);
    expect((await t.commands('contract', [])).status).toBe(400);
    const tooMany = Array.from({ length: 1001 }, (_, i) => ({ op: 'UPSERT_ENTITY', name: `n${i}` }));
    expect((await t.commands('contract', tooMany)).status).toBe(400);
    const garbage = await t.post('/v1/memories/contract/commands', '{"commands": [', 'application/json');
    expect(garbage.status).toBe(400);
    expect(garbage.body.error.code).toBe('INVALID_REQUEST');
    expect(garbage.body.error.details).toEqual([{ path: '', message: expect.any(String) }]);
    const poisoned = await t.post('/v1/memories/contract/commands', '{"commands":[{"op":"UPSERT_ENTITY","name":"x","__proto__":{"admin":true}}]}');
    expect(poisoned.status).toBe(400);
    expect(poisoned.body.error.message).toMatch(/forbidden key/);
  });

  it('refuses a body that is not valid UTF-8 (a command, an import) and writes nothing', async () => {
    const before = await logLength('contract');
    const latin1 = Buffer.concat([Buffer.from('{"commands":[{"op":"UPSERT_ENTITY","name":"Ren'), Buffer.from([0xe9]), Buffer.from('e"}]}')]);
    const response = await t.post('/v1/memories/contract/commands', latin1);
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({ code: 'INVALID_REQUEST', message: 'request body is not valid UTF-8' });
    expect(await logLength('contract')).toBe(before);
    const line = Buffer.concat([
      Buffer.from(`{"op":"UPSERT_ENTITY","name":"Ren`),
      Buffer.from([0xe9]),
      Buffer.from(`e","recordedAt":"${T0}","commandId":"c1"}\n`),
    ]);
    const imported = await t.post('/v1/memories/contract-utf8/import', line, 'application/x-ndjson');
    expect(imported.status).toBe(400);
    expect(await logLength('contract-utf8')).toBe(0);
    // The same text well encoded is accepted.
    expect((await t.commands('contract', [{ op: 'UPSERT_ENTITY', name: 'Renée' }])).status).toBe(200);
  });

  it('answers a path with a malformed percent-encoding with the error envelope', async () => {
    for (const path of ['/v1/memories/contract/entities/%ZZ', '/v1/memories/%ZZ/facts', '/v1/memories/contract/facts/%E0%A4%A/audit']) {
      const response = await t.get(path);
      expect(response.status).toBe(400);
      expect(response.body).toEqual({
        error: { code: 'INVALID_REQUEST', message: expect.any(String), details: [{ path: '', message: expect.any(String) }] },
      });
    }
  });

  it('answers a request the HTTP parser refuses with the error envelope', async () => {
    const { host, port } = new URL(t.url);
    const raw = (request: string) =>
      new Promise<string>((resolve, reject) => {
        const socket = connect(Number(port), host.replace(/:\d+$/, '').replace(/^\[|\]$/g, ''));
        let answer = '';
        socket.on('data', (chunk) => (answer += chunk.toString()));
        socket.on('close', () => resolve(answer));
        socket.on('error', reject);
        socket.end(request);
      });
    for (const request of [
      'POST /v1/memories/contract/commands HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n{}',
      'GET /healthz HTTP/1.1\r\nHost: x\r\nthis line has no colon\r\n\r\n',
    ]) {
      const answer = await raw(request);
      expect(answer).toMatch(/^HTTP\/1\.1 400 /);
      expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toEqual({
        error: { code: 'INVALID_REQUEST', message: 'malformed HTTP request', details: [{ path: '', message: 'malformed HTTP request' }] },
      });
    }
    // A request line longer than the parser takes (a 200 KB query string) is bad input too.
    const tooLong = await raw(`GET /v1/memories/contract/facts?src=${'x'.repeat(200_000)} HTTP/1.1\r\nHost: x\r\n\r\n`);
    expect(tooLong).toMatch(/^HTTP\/1\.1 400 /);
    expect(JSON.parse(tooLong.slice(tooLong.indexOf('\r\n\r\n') + 4)).error).toMatchObject({
      code: 'INVALID_REQUEST',
      message: 'request line or headers are too large',
    });
  });

  it('answers 413 above 8 MiB, read by a client still sending the body (no reset connection)', async () => {
    for (const mib of [9, 20]) {
      const huge = JSON.stringify({ commands: [{ op: 'UPSERT_ENTITY', name: 'x'.repeat(mib * 1024 * 1024) }] });
      // Fastify answered and closed while the client was still uploading: fetch then failed with EPIPE about one time in three.
      for (let attempt = 0; attempt < 4; attempt++) {
        for (const path of ['commands', 'import', 'search']) {
          const response = await t.post(`/v1/memories/contract/${path}`, huge);
          expect([path, response.status, response.body.error.code]).toEqual([path, 413, 'PAYLOAD_TOO_LARGE']);
        }
      }
    }
    // Over 8 MiB is 413 whatever else is wrong: a content type never parsed, a route that does not exist.
    const bytes = new Uint8Array(9 * 1024 * 1024);
    for (const [path, type] of [
      ['/v1/memories/contract/commands', 'application/octet-stream'],
      ['/v1/no-such-route', 'application/json'],
    ]) {
      const response = await t.post(path!, bytes, type);
      expect([path, response.status, response.body.error.code]).toEqual([path, 413, 'PAYLOAD_TOO_LARGE']);
    }
    // With Expect: 100-continue, the 413 comes before the body is sent.
    const { host, port } = new URL(t.url);
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), host.replace(/:\d+$/, '').replace(/^\[|\]$/g, ''));
      socket.on('data', (chunk) => (resolve(chunk.toString()), socket.destroy()));
      socket.on('error', reject);
      socket.write(
        'POST /v1/memories/contract/commands HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n' +
          'Expect: 100-continue\r\nContent-Length: 9437184\r\n\r\n',
      );
    });
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)).error.code).toBe('PAYLOAD_TOO_LARGE');
  }, 60_000);

  it('is idempotent by commandId: a resend writes nothing and returns the original result', async () => {
    const first = await t.commands('idem', [{ op: 'UPSERT_ENTITY', commandId: 'c-1', entityId: 'dora', name: 'Dora', recordedAt: T1 }]);
    expect(first.body.results[0].status).toBe('applied');
    const again = await t.commands('idem', [{ op: 'UPSERT_ENTITY', commandId: 'c-1', entityId: 'dora', name: 'Dora', recordedAt: T1 }]);
    expect(again.body.results[0]).toEqual({ ...first.body.results[0], status: 'duplicate' });
    expect(again.body.position).toBe(first.body.position);
    expect(await logLength('idem')).toBe(1);
    const same = await t.commands('idem', [{ op: 'UPSERT_ENTITY', commandId: 'c-2', entityId: 'dora', name: 'Dora', recordedAt: T2 }]);
    expect(same.body.results[0]).toMatchObject({ status: 'unchanged', recordedAt: T2 });
    // An unchanged command is accepted too: remembered (a resend is a duplicate), exported, and
    // its recordedAt is the memory's latest (an earlier one is a regression).
    const resent = await t.commands('idem', [{ op: 'UPSERT_ENTITY', commandId: 'c-2', entityId: 'dora', name: 'Dora' }]);
    expect(resent.body.results[0]).toEqual({ ...same.body.results[0], status: 'duplicate' });
    expect(await logLength('idem')).toBe(2);
    const earlier = await t.commands('idem', [{ op: 'UPSERT_ENTITY', entityId: 'eve', name: 'Eve', recordedAt: T1 }]);
    expect(earlier.status).toBe(409);
    expect(earlier.body.error.code).toBe('RECORD_TIME_REGRESSION');
  });

  it('reads an entity with its aliases and merges at a record time', async () => {
    await t.commands('ents', [
      { op: 'UPSERT_ENTITY', entityId: 'liz', name: 'Elizabeth', aliases: ['Liz'], types: ['person'], recordedAt: T0 },
      { op: 'UPSERT_ENTITY', entityId: 'beth', name: 'Beth', recordedAt: T0 },
      { op: 'MERGE_ENTITY', srcId: 'beth', dstId: 'liz', recordedAt: T1 },
    ]);
    const before = await t.get(`/v1/memories/ents/entities/beth?recordedAt=${T0}`);
    expect(before.body).toMatchObject({ entityId: 'beth', name: 'Beth', names: ['Beth'], merges: [] });
    const after = await t.get(`/v1/memories/ents/entities/beth?recordedAt=${T1}`);
    expect(after.body).toEqual({
      entityId: 'liz',
      name: 'Elizabeth',
      names: ['Elizabeth', 'Beth'],
      aliases: ['Liz', 'Beth'],
      types: ['person'],
      merges: [{ entityId: 'beth', into: 'liz', recordedAt: T1 }],
      recordedFrom: T0,
    });
    const missing = await t.get(`/v1/memories/ents/entities/liz?recordedAt=2023-01-01T00:00:00Z`);
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('UNKNOWN_ENTITY');
  });

  it('hides an event once a fact of its evidence is archived, but not before', async () => {
    await t.commands('evts', [
      { op: 'UPSERT_ENTITY', entityId: 'eve', name: 'Eve', recordedAt: T0 },
      { op: 'UPSERT_EDGE', factId: 'eve-run', src: 'eve', rel: 'ran', dst: { literal: 10, datatype: 'number' }, validFrom: T0, recordedAt: T0 },
      {
        op: 'UPSERT_EVENT',
        eventId: 'marathon',
        summary: 'Eve ran a marathon',
        includesFacts: ['eve-run'],
        participants: [{ entityId: 'eve', role: 'runner' }],
        timeSpan: { from: T0, to: T1 },
        recordedAt: T0,
      },
      { op: 'ARCHIVE_EDGE', factId: 'eve-run', recordedAt: T2 },
    ]);
    for (const consistency of ['projection', 'replay']) {
      const visible = await t.get(`/v1/memories/evts/events?recordedAt=${T1}&validAt=${T0}&consistency=${consistency}`);
      expect(visible.body.events.map((e: any) => e.eventId)).toEqual(['marathon']);
      const anyTime = await t.get(`/v1/memories/evts/events?recordedAt=${T1}&validAt=*&consistency=${consistency}`);
      expect(anyTime.body.events.map((e: any) => e.eventId)).toEqual(['marathon']);
      const outside = await t.get(`/v1/memories/evts/events?recordedAt=${T1}&validAt=${T1}&consistency=${consistency}`);
      expect(outside.body.events).toEqual([]);
      // validAt defaults to the request time (SPEC §3.2), which the marathon's [T0, T1) does not hold
      const now = await t.get(`/v1/memories/evts/events?recordedAt=${T1}&consistency=${consistency}`);
      expect([now.body.cut.validAt > T2, now.body.events]).toEqual([true, []]);
      const hidden = await t.get(`/v1/memories/evts/events?recordedAt=${T2}&validAt=*&consistency=${consistency}`);
      expect(hidden.body.events).toEqual([]);
    }
  });

  it('waits for minPosition (read-your-writes) and refuses a position beyond the log', async () => {
    const write = await t.commands('ryw', [
      { op: 'UPSERT_ENTITY', entityId: 'fay', name: 'Fay' },
      { op: 'UPSERT_EDGE', src: 'fay', rel: 'is', dst: { literal: true } },
    ]);
    const read = await t.get(`/v1/memories/ryw/facts?minPosition=${write.body.position}&validAt=*`);
    expect(read.status).toBe(200);
    expect(read.body.facts).toHaveLength(1);
    const beyond = await t.get(`/v1/memories/ryw/facts?minPosition=${write.body.position + 1_000_000}`);
    expect(beyond.status).toBe(400);
  }, 30_000);

  it('hands out positions per memory: its own log\u2019s length, whatever other memories wrote', async () => {
    const m = '/v1/memories/own-positions';
    expect((await t.commands('own-positions', [{ op: 'UPSERT_ENTITY', entityId: 'ann', name: 'Ann' }])).body.position).toBe(1);
    const second = await t.commands('own-positions', [
      { op: 'UPSERT_ENTITY', entityId: 'ben', name: 'Ben' },
      { op: 'UPSERT_EDGE', factId: 'ann-ben', src: 'ann', rel: 'knows', dst: 'ben' },
    ]);
    expect(second.body.position).toBe(3);
    expect((await t.get(`${m}/facts/ann-ben/audit`)).body.events.map((e: any) => e.position)).toEqual([3]);
    expect((await t.get(`${m}/facts?minPosition=3&validAt=*`)).body.facts.map((f: any) => f.factId)).toEqual(['ann-ben']);
    // The log as a whole is far longer (other memories), but this memory never handed out 4.
    const beyond = await t.get(`${m}/facts?minPosition=4`);
    expect([beyond.status, beyond.body.error.details]).toEqual([400, [{ path: 'minPosition', message: 'no such position in this memory' }]]);
    expect((await t.get(`${m}/facts?minPosition=4&consistency=replay`)).status).toBe(400);
  }, 30_000);

  it('every read of the read models takes minPosition; one beyond the log is refused at once', async () => {
    const write = await t.commands('ryw-all', [
      { op: 'UPSERT_ENTITY', entityId: 'gus', name: 'Gus', recordedAt: T0 },
      { op: 'UPSERT_EDGE', factId: 'gus-tea', src: 'gus', rel: 'likes', dst: { literal: 'green tea' }, recordedAt: T0 },
      {
        op: 'UPSERT_EVENT',
        eventId: 'tea-time',
        summary: 'Gus drinks green tea',
        includesFacts: ['gus-tea'],
        timeSpan: { from: T0 },
        recordedAt: T0,
      },
    ]);
    const at = `minPosition=${write.body.position}`;
    const m = '/v1/memories/ryw-all';
    expect((await t.get(`${m}/facts/gus-tea/history?${at}`)).body.versions).toHaveLength(1);
    expect((await t.get(`${m}/entities/gus?${at}`)).body.entityId).toBe('gus');
    const events = await t.get(`${m}/events?${at}&consistency=projection`);
    expect([events.body.source, events.body.events.map((e: any) => e.eventId)]).toEqual(['projection', ['tea-time']]);
    expect((await t.get(`${m}/changes?from=${T0}&${at}`)).body.changes).toHaveLength(1);
    const search = await t.post(`${m}/search`, { query: 'green tea', minPosition: write.body.position });
    expect(search.body.items.map((i: any) => i.id)).toEqual(expect.arrayContaining(['tea-time', 'gus-tea']));
    const beyond = `minPosition=${write.body.position + 1_000_000}`;
    const started = Date.now();
    for (const path of [`facts/gus-tea/history?${beyond}`, `entities/gus?${beyond}`, `events?${beyond}`, `changes?from=${T0}&${beyond}`]) {
      expect((await t.get(`${m}/${path}`)).status).toBe(400);
    }
    expect((await t.post(`${m}/search`, { query: 'tea', minPosition: write.body.position + 1_000_000 })).status).toBe(400);
    expect(Date.now() - started).toBeLessThan(5_000); // no bounded wait before the refusal (that wait is 10 s)
  }, 30_000);

  it('exports the log as JSONL and imports it into an empty memory with equal answers', async () => {
    const exported = await t.get('/v1/memories/contract/export');
    expect(exported.status).toBe(200);
    const imported = await t.post('/v1/memories/contract-copy/import', exported.text, 'application/x-ndjson');
    expect(imported.status).toBe(200);
    const again = await t.get('/v1/memories/contract-copy/export');
    expect(again.text).toBe(exported.text);
    for (const cut of [`validAt=*&recordedAt=${T0}`, `validAt=${T1}`, 'validAt=*']) {
      const a = await t.get(`/v1/memories/contract/facts?${cut}&recordedAt=${T2}`);
      const b = await t.get(`/v1/memories/contract-copy/facts?${cut}&recordedAt=${T2}`);
      expect(b.body.facts).toEqual(a.body.facts);
    }
    // Whole answers, positions included: a memory's positions are its own.
    for (const path of [
      'facts/bob-paris/history',
      'facts/bob-old/history',
      'facts/bob-paris/audit',
      'facts/bob-old/audit',
      `entities/bob?recordedAt=${T2}`,
    ]) {
      const [a, b] = [await t.get(`/v1/memories/contract/${path}`), await t.get(`/v1/memories/contract-copy/${path}`)];
      expect([b.status, b.body]).toEqual([200, a.body]);
    }
    const refused = await t.post('/v1/memories/contract-copy/import', exported.text, 'application/x-ndjson');
    expect(refused.status).toBe(409);
  });

  it('imports an export file whatever content type names it (a JSON client, curl, none)', async () => {
    const first = (await t.get('/v1/memories/contract/export')).text.split('\n')[0]!;
    for (const [i, type] of [
      'application/json',
      'application/x-www-form-urlencoded',
      'application/octet-stream',
      'text/plain; charset=utf-8',
    ].entries()) {
      const imported = await t.post(`/v1/memories/contract-typed-${i}/import`, `${first}\n`, type);
      expect([type, imported.status, imported.body]).toEqual([type, 200, { position: 1, imported: 1 }]);
    }
    // bytes: fetch sends no content type
    const untyped = await fetch(`${t.url}/v1/memories/contract-typed-none/import`, { method: 'POST', body: new TextEncoder().encode(`${first}\n`) });
    expect([untyped.status, await untyped.json()]).toEqual([200, { position: 1, imported: 1 }]);
    const bad = await t.post('/v1/memories/contract-typed-bad/import', '{"op": "UPSERT_ENTITY"\n', 'application/json');
    expect([bad.status, bad.body.error.code]).toEqual([400, 'INVALID_REQUEST']);
    expect(await logLength('contract-typed-bad')).toBe(0);
  });

  it('imports: counts a repeated line once, refuses an unknown query parameter', async () => {
    const first = (await t.get('/v1/memories/contract/export')).text.split('\n')[0]!;
    const imported = await t.post('/v1/memories/contract-twice/import', `${first}\n${first}\n`, 'application/x-ndjson');
    expect(imported.body).toEqual({ position: expect.any(Number), imported: 1 });
    expect(await logLength('contract-twice')).toBe(1);
    const unknown = await t.post('/v1/memories/contract-other/import?colour=red', `${first}\n`, 'application/x-ndjson');
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.details).toEqual([expect.objectContaining({ path: 'colour' })]);
    expect(await logLength('contract-other')).toBe(0);
  });

  it('locates an import\u2019s domain errors by the file\u2019s line, as its parse errors, and writes nothing', async () => {
    const lines = [
      '',
      JSON.stringify({ op: 'UPSERT_ENTITY', entityId: 'ida', name: 'Ida', commandId: 'i-1', recordedAt: T1 }),
      '',
      JSON.stringify({ op: 'ARCHIVE_EDGE', factId: 'nope', commandId: 'i-2', recordedAt: T1 }),
      JSON.stringify({ op: 'UPSERT_ENTITY', entityId: 'ivo', name: 'Ivo', commandId: 'i-3', recordedAt: T0 }),
    ];
    const unknownFact = await t.post('/v1/memories/contract-lines/import', lines.join('\n'), 'application/x-ndjson');
    expect(unknownFact.status).toBe(404);
    expect(unknownFact.body.error).toMatchObject({
      code: 'UNKNOWN_FACT',
      message: expect.stringMatching(/^line 4: /),
      details: [{ path: 'line.4.factId' }],
    });
    const regression = await t.post('/v1/memories/contract-lines/import', [lines[1], lines[4]].join('\n'), 'application/x-ndjson');
    expect(regression.status).toBe(409);
    expect(regression.body.error).toMatchObject({ code: 'RECORD_TIME_REGRESSION', details: [{ path: 'line.2.recordedAt' }] });
    expect(await logLength('contract-lines')).toBe(0);
  });

  it('serves health, readiness, metrics, OpenAPI, and a JSON 404', async () => {
    expect((await t.get('/healthz')).body).toEqual({ status: 'ok' });
    expect((await t.get('/readyz')).status).toBe(200);
    const metrics = await t.get('/metrics');
    expect(metrics.text).toContain('memotrace_http_request_duration_seconds');
    expect(metrics.text).toContain('memotrace_commands_total');
    const docs = await t.get('/docs');
    expect(docs.body.openapi).toMatch(/^3\./);
    expect(Object.keys(docs.body.paths)).toEqual(expect.arrayContaining(['/v1/memories/{memoryId}/commands', '/v1/memories/{memoryId}/facts']));
    const missing = await t.get('/v1/nothing-here');
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('NOT_FOUND');
  });
});
