import { hashApiKey, parseApiKeys } from '@memotrace/http-kit';
import { type TestService, startTestService } from '@memotrace/memotrace/testing';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { join, resolve } from 'node:path';

/**
 * Issue 6: the MCP server, driven by the SDK's own client over stdio (the real server
 * process, launched as an agent framework would) and over streamable HTTP (/mcp on the
 * service); API-key scoping holds through MCP.
 */
const ROOT = resolve(__dirname, '../../..');
const TOKENS = { a: 'mt_mcp-key-a', aRead: 'mt_mcp-read-a', b: 'mt_mcp-key-b' };
const keys = parseApiKeys(
  JSON.stringify([
    { id: 'agent-a', hash: hashApiKey(TOKENS.a), memories: ['mem-a'], access: 'write' },
    { id: 'reader-a', hash: hashApiKey(TOKENS.aRead), memories: ['mem-a'], access: 'read' },
    { id: 'agent-b', hash: hashApiKey(TOKENS.b), memories: ['mem-b'], access: 'write' },
  ]),
);
const MON = '2024-05-06T09:00:00.000Z';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({ apiKeys: keys });
  const seeded = await fetch(`${svc.url}/v1/memories/mem-b/commands`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKENS.b}` },
    body: JSON.stringify({ commands: [{ op: 'UPSERT_ENTITY', commandId: 'b-1', entityId: 'bob', name: 'Bob' }] }),
  });
  expect(seeded.status).toBe(200);
}, 60_000);
afterAll(async () => {
  await svc?.stop();
});

async function stdioClient(env: Record<string, string>): Promise<Client> {
  const client = new Client({ name: 'mcp-int-test', version: '1.0.0' });
  const transport = new StdioClientTransport({
    command: join(ROOT, 'node_modules/.bin/tsx'),
    args: [join(ROOT, 'services/mcp/src/main.ts')],
    cwd: ROOT,
    env: { PATH: process.env['PATH'] ?? '', MEMOTRACE_URL: svc.url, ...env },
    stderr: 'pipe',
  });
  await client.connect(transport);
  return client;
}

async function httpClient(token: string | undefined, query = ''): Promise<Client> {
  const client = new Client({ name: 'mcp-int-test', version: '1.0.0' });
  const headers: Record<string, string> = token === undefined ? {} : { authorization: `Bearer ${token}` };
  await client.connect(new StreamableHTTPClientTransport(new URL(`${svc.url}/mcp${query}`), { requestInit: { headers } }));
  return client;
}

const textOf = (result: unknown) => ((result as CallToolResult).content[0] as { text: string }).text;
async function ok(client: Client, name: string, args: Record<string, unknown>): Promise<any> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  if (result.isError) throw new Error(`${name} failed: ${textOf(result)}`);
  return JSON.parse(textOf(result));
}
async function refused(client: Client, name: string, args: Record<string, unknown>): Promise<string> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  expect(result.isError).toBe(true);
  return textOf(result);
}
const exportOf = async (memoryId: string, token: string) =>
  (await fetch(`${svc.url}/v1/memories/${memoryId}/export`, { headers: { authorization: `Bearer ${token}` } })).text();

describe('MCP server over stdio (the real process)', () => {
  let client: Client;
  beforeAll(async () => {
    client = await stdioClient({ MEMOTRACE_API_KEY: TOKENS.a, MEMOTRACE_MEMORY: 'mem-a' });
  }, 60_000);
  afterAll(async () => {
    await client?.close();
  });

  it('lists the memory tools with JSON Schemas from the contracts', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(
      [
        'correct_fact',
        'define_relation',
        'fact_audit',
        'fact_history',
        'read_facts',
        'remember_batch',
        'remember_entity',
        'remember_event',
        'remember_fact',
        'retract_fact',
        'search_memory',
      ].sort(),
    );
    const fact = tools.find((t) => t.name === 'remember_fact')!;
    expect(fact.inputSchema.required).toEqual(expect.arrayContaining(['src', 'rel', 'dst']));
    expect(fact.inputSchema.properties).toHaveProperty('validFrom');
    expect(fact.inputSchema.properties).not.toHaveProperty('op');
    expect(tools.find((t) => t.name === 'read_facts')!.annotations?.readOnlyHint).toBe(true);
  });

  it('remembers, reads at a cut, corrects, retracts, and shows history and audit', async () => {
    await ok(client, 'remember_entity', { entityId: 'alice', name: 'Alice', recordedAt: MON });
    await ok(client, 'remember_entity', { entityId: 'acme', name: 'Acme', recordedAt: MON });
    const fact = await ok(client, 'remember_fact', {
      factId: 'alice-acme',
      src: 'alice',
      rel: 'works_at',
      dst: 'acme',
      validFrom: '2024-05-06T00:00:00Z',
      recordedAt: MON,
      reason: 'she said so',
    });
    expect(fact.results[0]).toMatchObject({ status: 'applied', ids: { factId: 'alice-acme' } });
    const event = await ok(client, 'remember_event', {
      eventId: 'hired',
      summary: 'Alice joined Acme',
      includesFacts: ['alice-acme'],
      timeSpan: { from: '2024-05-06T00:00:00Z' },
      recordedAt: MON,
    });
    expect(event.results[0]).toMatchObject({ status: 'applied', ids: { eventId: 'hired' } });

    const tuesday = await ok(client, 'read_facts', { src: 'alice', validAt: '2024-05-07T12:00:00Z', minPosition: event.position });
    expect(tuesday.facts).toMatchObject([{ factId: 'alice-acme', dst: 'acme', validTo: null }]);

    await ok(client, 'correct_fact', { factId: 'alice-acme', validTo: '2024-05-08T00:00:00Z', recordedAt: '2024-05-09T10:00:00Z' });
    const thursday = await ok(client, 'read_facts', { src: 'alice', validAt: '2024-05-09T12:00:00Z' });
    expect(thursday.facts).toEqual([]);
    const believedMonday = await ok(client, 'read_facts', {
      src: 'alice',
      validAt: '2024-05-09T12:00:00Z',
      recordedAt: '2024-05-06T12:00:00Z',
      consistency: 'replay',
    });
    expect(believedMonday).toMatchObject({ source: 'replay', facts: [{ factId: 'alice-acme', validTo: null }] });

    await ok(client, 'retract_fact', { factId: 'alice-acme', recordedAt: '2024-05-10T10:00:00Z' });
    expect((await ok(client, 'read_facts', { src: 'alice', validAt: '*' })).facts).toEqual([]);

    const history = await ok(client, 'fact_history', { factId: 'alice-acme' });
    expect(history.versions.map((v: any) => [v.validTo, v.recordedFrom, v.recordedTo])).toEqual([
      [null, MON, '2024-05-09T10:00:00.000Z'],
      ['2024-05-08T00:00:00.000Z', '2024-05-09T10:00:00.000Z', '2024-05-10T10:00:00.000Z'],
    ]);
    const audit = await ok(client, 'fact_audit', { factId: 'alice-acme' });
    expect(audit.events.map((e: any) => e.actor)).toEqual(['agent-a', 'agent-a', 'agent-a']);
    expect(audit.events[0]).toMatchObject({ type: 'FactAsserted', reason: 'she said so' });
  });

  it('searches with a cut', async () => {
    const now = await ok(client, 'search_memory', { query: 'Alice Acme' });
    expect(now.items.filter((i: any) => i.kind === 'fact')).toEqual([]); // retracted
    const before = await ok(client, 'search_memory', { query: 'Alice Acme', recordedAt: '2024-05-07T00:00:00Z', validAt: '*' });
    expect(before.items.map((i: any) => i.id)).toEqual(expect.arrayContaining(['alice-acme', 'hired']));
  });

  it('refuses bad input with a clear error and writes nothing', async () => {
    const before = await exportOf('mem-a', TOKENS.a);
    expect(await refused(client, 'remember_fact', { src: 'alice', rel: 'works_at' })).toMatch(/dst/);
    expect(
      await refused(client, 'remember_fact', {
        src: 'alice',
        rel: 'r',
        dst: 'acme',
        validFrom: '2024-05-06T00:00:00Z',
        validTo: '2024-05-01T00:00:00Z',
      }),
    ).toMatch(/^INVALID_REQUEST \(HTTP 400\).*validTo/);
    expect(await refused(client, 'correct_fact', { factId: 'nope', validTo: '2024-05-08T00:00:00Z' })).toMatch(/^UNKNOWN_FACT \(HTTP 404\)/);
    expect(await refused(client, 'read_facts', { validAt: 'yesterday' })).toMatch(/validAt/);
    expect(await exportOf('mem-a', TOKENS.a)).toBe(before);
  });

  it('a key for memory A can neither read nor write memory B', async () => {
    const before = await exportOf('mem-b', TOKENS.b);
    expect(await refused(client, 'remember_entity', { memoryId: 'mem-b', entityId: 'mallory', name: 'Mallory' })).toMatch(/^FORBIDDEN \(HTTP 403\)/);
    expect(await refused(client, 'remember_batch', { memoryId: 'mem-b', commands: [{ op: 'UPSERT_ENTITY', name: 'Mallory' }] })).toMatch(
      /^FORBIDDEN/,
    );
    for (const [name, args] of [
      ['read_facts', {}],
      ['search_memory', { query: 'Bob' }],
      ['fact_history', { factId: 'x' }],
      ['fact_audit', { factId: 'x' }],
    ] as const) {
      expect(await refused(client, name, { memoryId: 'mem-b', ...args })).toMatch(/^FORBIDDEN \(HTTP 403\)/);
    }
    expect(await exportOf('mem-b', TOKENS.b)).toBe(before);
  });

  it('an invalid key changes nothing; a read key cannot write', async () => {
    const before = await exportOf('mem-a', TOKENS.a);
    const invalid = await stdioClient({ MEMOTRACE_API_KEY: 'mt_wrong', MEMOTRACE_MEMORY: 'mem-a' });
    try {
      expect(await refused(invalid, 'remember_entity', { entityId: 'eve', name: 'Eve' })).toMatch(/^UNAUTHORIZED \(HTTP 401\)/);
      expect(await refused(invalid, 'read_facts', {})).toMatch(/^UNAUTHORIZED/);
    } finally {
      await invalid.close();
    }
    const reader = await stdioClient({ MEMOTRACE_API_KEY: TOKENS.aRead });
    try {
      expect(await refused(reader, 'remember_entity', { memoryId: 'mem-a', entityId: 'rita', name: 'Rita' })).toMatch(/^FORBIDDEN .*read-only/);
      expect(await refused(reader, 'read_facts', {})).toMatch(/memoryId is required/);
      expect((await ok(reader, 'read_facts', { memoryId: 'mem-a', validAt: '*', recordedAt: '2024-05-07T00:00:00Z' })).facts).toHaveLength(1);
    } finally {
      await reader.close();
    }
    expect(await exportOf('mem-a', TOKENS.a)).toBe(before);
  }, 60_000);
});

describe('MCP server over streamable HTTP (/mcp on the service)', () => {
  it("serves the tools with the caller's key and its scope", async () => {
    const client = await httpClient(TOKENS.b, '?memory=mem-b');
    try {
      expect((await client.listTools()).tools.length).toBe(11);
      await ok(client, 'remember_entity', { entityId: 'bcorp', name: 'B Corp' });
      await ok(client, 'remember_fact', { factId: 'bob-bcorp', src: 'bob', rel: 'works_at', dst: 'bcorp' });
      const facts = await ok(client, 'read_facts', { src: 'bob' });
      expect(facts.facts).toMatchObject([{ factId: 'bob-bcorp', dst: 'bcorp' }]);
      expect((await ok(client, 'fact_audit', { factId: 'bob-bcorp' })).events[0].actor).toBe('agent-b');

      const before = await exportOf('mem-a', TOKENS.a);
      expect(await refused(client, 'remember_entity', { memoryId: 'mem-a', entityId: 'mallory', name: 'Mallory' })).toMatch(
        /^FORBIDDEN \(HTTP 403\)/,
      );
      expect(await refused(client, 'read_facts', { memoryId: 'mem-a' })).toMatch(/^FORBIDDEN \(HTTP 403\)/);
      expect(await exportOf('mem-a', TOKENS.a)).toBe(before);
    } finally {
      await client.close();
    }
  });

  it('refuses a missing or invalid key (401) before any tool runs', async () => {
    const before = [await exportOf('mem-a', TOKENS.a), await exportOf('mem-b', TOKENS.b)];
    for (const token of [undefined, 'mt_wrong']) {
      await expect(httpClient(token, '?memory=mem-a')).rejects.toMatchObject({
        code: 401,
        message: expect.stringMatching(/(missing|invalid) API key/),
      });
    }
    const raw = await fetch(`${svc.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: 'Bearer mt_wrong' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'remember_entity', arguments: { memoryId: 'mem-a', name: 'Eve' } },
      }),
    });
    expect(raw.status).toBe(401);
    expect([await exportOf('mem-a', TOKENS.a), await exportOf('mem-b', TOKENS.b)]).toEqual(before);
  });
});
