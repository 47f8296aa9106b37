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
const TOKENS = { a: 'mt_mcp-key-a', aRead: 'mt_mcp-read-a', b: 'mt_mcp-key-b', names: 'mt_mcp-key-names', admin: 'mt_mcp-admin' };
const keys = parseApiKeys(
  JSON.stringify([
    { id: 'agent-a', hash: hashApiKey(TOKENS.a), memories: ['mem-a'], access: 'write' },
    { id: 'reader-a', hash: hashApiKey(TOKENS.aRead), memories: ['mem-a'], access: 'read' },
    { id: 'agent-b', hash: hashApiKey(TOKENS.b), memories: ['mem-b'], access: 'write' },
    { id: 'hr-agent', hash: hashApiKey(TOKENS.names), memories: ['story', 'names'], access: 'write' },
    { id: 'dpo', hash: hashApiKey(TOKENS.admin), memories: ['mem-e'], access: 'admin' },
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
        'find_entities',
        'read_facts',
        'remember_batch',
        'remember_entity',
        'remember_event',
        'remember_fact',
        'remember_turns',
        'retract_fact',
        'search_memory',
        'check_claims',
        'list_topics',
        'consolidate',
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

  it('remembers conversation turns and what the default extractor derives from them', async () => {
    const turns = {
      sessionId: 'chat-7',
      turns: [{ turnId: 'chat-7:1', speaker: 'Carol', text: 'I moved to Porto last month.', at: '2024-06-11T18:30:00Z' }],
    };
    const first = await ok(client, 'remember_turns', turns);
    expect(first.results).toMatchObject([{ status: 'applied', ids: { mentionId: 'chat-7:1' } }]);
    expect(first.derived.map((d: any) => d.op)).toEqual(expect.arrayContaining(['UPSERT_ENTITY', 'UPSERT_EDGE']));
    const again = await ok(client, 'remember_turns', turns);
    expect([again.results[0].status, again.derived]).toEqual(['duplicate', []]);
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
      expect((await client.listTools()).tools.length).toBe(16);
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

describe('the erase tool: for admin keys only', () => {
  const listed = async (client: Client) => (await client.listTools()).tools.map((tool) => tool.name);
  beforeAll(async () => {
    const seeded = await fetch(`${svc.url}/v1/memories/mem-e/commands`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKENS.admin}` },
      body: JSON.stringify({ commands: [{ op: 'UPSERT_ENTITY', entityId: 'eve', name: 'Eve Canary' }] }),
    });
    expect(seeded.status).toBe(200);
  });

  it('is not offered over HTTP to a write or read key', async () => {
    for (const token of [TOKENS.a, TOKENS.aRead]) {
      const client = await httpClient(token, '?memory=mem-a');
      try {
        expect(await listed(client)).not.toContain('erase');
        expect(await refused(client, 'erase', { entityId: 'alice', reason: 'r' })).toMatch(/erase/);
      } finally {
        await client.close();
      }
    }
  });

  it('is offered to an admin key, marked destructive, and erases', async () => {
    const client = await httpClient(TOKENS.admin, '?memory=mem-e');
    try {
      const tool = (await client.listTools()).tools.find((t) => t.name === 'erase');
      expect(tool?.annotations).toMatchObject({ destructiveHint: true, readOnlyHint: false });
      expect(
        properties(tool!.inputSchema, 'erase')
          .filter(([, field]) => !/e\.g\./.test(field.description ?? ''))
          .map(([path]) => path),
      ).toEqual([]);
      expect(await refused(client, 'erase', { entityId: 'eve', factId: 'f', reason: 'r' })).toMatch(/^INVALID_REQUEST: name exactly one/);
      const erased = await ok(client, 'erase', { entityId: 'eve', reason: 'asked to be forgotten', commandId: 'mcp-erase-1' });
      expect(erased.results).toMatchObject([{ commandId: 'mcp-erase-1', status: 'applied', ids: { entityId: 'eve' } }]);
      const log = (await exportOf('mem-e', TOKENS.admin)).trim().split('\n');
      expect(JSON.parse(log.at(-1)!)).toMatchObject({ op: 'ERASE', subject: { entityId: 'eve' }, actor: 'dpo', reason: 'asked to be forgotten' });
      expect(await refused(client, 'erase', { entityId: 'no-such-entity', reason: 'r' })).toMatch(/^UNKNOWN_ENTITY \(HTTP 404\)/);
    } finally {
      await client.close();
    }
  });

  it('over stdio, is offered only when asked for, and the service still refuses it to a key that is not admin', async () => {
    const plain = await stdioClient({ MEMOTRACE_API_KEY: TOKENS.a, MEMOTRACE_MEMORY: 'mem-a' });
    try {
      expect(await listed(plain)).not.toContain('erase');
    } finally {
      await plain.close();
    }
    const asked = await stdioClient({ MEMOTRACE_API_KEY: TOKENS.a, MEMOTRACE_MEMORY: 'mem-a', MEMOTRACE_MCP_ERASE: 'true' });
    try {
      expect(await listed(asked)).toContain('erase');
      const before = await exportOf('mem-a', TOKENS.a);
      expect(await refused(asked, 'erase', { entityId: 'alice', reason: 'r' })).toMatch(/^FORBIDDEN \(HTTP 403\): .*admin key/);
      expect(await exportOf('mem-a', TOKENS.a)).toBe(before);
    } finally {
      await asked.close();
    }
  }, 60_000);
});

/** Every property of a JSON Schema, nested ones included (objects, array items, union branches), by path. */
function properties(schema: any, path: string, out: [string, any][] = []): [string, any][] {
  if (schema === null || typeof schema !== 'object') return out;
  for (const [name, property] of Object.entries<any>(schema.properties ?? {})) {
    out.push([`${path}.${name}`, property]);
    properties(property, `${path}.${name}`, out);
  }
  if (schema.items) properties(schema.items, `${path}[]`, out);
  for (const key of ['anyOf', 'oneOf', 'allOf']) for (const [i, branch] of (schema[key] ?? []).entries()) properties(branch, `${path}|${i}`, out);
  return out;
}

describe('MCP tools an LLM can use: names, not ids', () => {
  let client: Client;
  beforeAll(async () => {
    client = await httpClient(TOKENS.names, '?memory=story');
  });
  afterAll(async () => {
    await client?.close();
  });

  it('sends instructions, and describes every tool and every field of its input (nested ones too) with an example', async () => {
    expect(client.getInstructions()).toEqual(expect.stringContaining('validAt'));
    expect(client.getInstructions()).toEqual(expect.stringContaining('recordedAt'));
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain('find_entities');
    const undescribed: string[] = [];
    const withoutExample: string[] = [];
    for (const tool of tools) {
      if (!tool.description?.trim()) undescribed.push(tool.name);
      for (const [path, property] of properties(tool.inputSchema, tool.name)) {
        const description = typeof property.description === 'string' ? property.description.trim() : '';
        if (description === '') undescribed.push(path);
        else if (!/e\.g\./.test(description)) withoutExample.push(path);
      }
    }
    expect(undescribed).toEqual([]);
    expect(withoutExample).toEqual([]);
    // Nested objects are reached: the batch's commands, an event's participants, a literal dst.
    const paths = tools.flatMap((t) => properties(t.inputSchema, t.name).map(([path]) => path));
    expect(paths).toEqual(expect.arrayContaining(['remember_event.participants[].entity', 'remember_event.timeSpan.from']));
    expect(paths.filter((p) => p.startsWith('remember_batch.commands[]|')).length).toBeGreaterThan(40);
    expect(paths.some((p) => /^remember_fact\.dst\|\d+\.literal$/.test(p))).toBe(true);
  });

  // The README's story, told by name only: no entity id is ever passed.
  it('tells the Acme/Beta story by name, and reads where Alice works now and where she worked before', async () => {
    const MON = '2024-05-06T09:00:00Z';
    const THU = '2024-05-09T10:00:00Z';
    await ok(client, 'define_relation', { rel: 'works_at', cardinality: 'one', recordedAt: MON });
    const monday = await ok(client, 'remember_fact', {
      src: 'Alice',
      rel: 'works_at',
      dst: 'Acme',
      validFrom: '2024-05-06T00:00:00Z',
      recordedAt: MON,
      actor: 'hr-agent',
      createMissing: true,
    });
    expect(monday.resolved).toEqual([
      { field: 'src', value: 'Alice', entityId: expect.stringMatching(/^ent_/), by: 'created' },
      { field: 'dst', value: 'Acme', entityId: expect.stringMatching(/^ent_/), by: 'created' },
    ]);
    expect(monday.results.map((r: any) => r.status)).toEqual(['applied', 'applied', 'applied']);
    const thursday = await ok(client, 'remember_fact', {
      src: 'alice',
      rel: 'works_at',
      dst: 'Beta',
      validFrom: '2024-05-08T00:00:00Z',
      recordedAt: THU,
      reason: 'Alice said she moved',
      createMissing: true,
    });
    expect(thursday.resolved.map((r: any) => [r.field, r.by])).toEqual([
      ['src', 'name'],
      ['dst', 'created'],
    ]);
    expect(thursday.results.at(-1).ids.supersededFactIds).toEqual([monday.results.at(-1).ids.factId]);
    await ok(client, 'remember_event', {
      summary: 'Alice moved from Acme to Beta',
      timeSpan: { from: '2024-05-08T00:00:00Z' },
      participants: [
        { entity: 'Alice', role: 'employee' },
        { entity: 'BETA', role: 'employer' },
      ],
      recordedAt: THU,
    });

    const worksAt = async (args: Record<string, unknown>) => {
      const answer = await ok(client, 'read_facts', { src: 'Alice', rel: 'works_at', ...args });
      return answer.facts.map((f: any) => [answer.names[f.dst], f.validTo]);
    };
    expect(await worksAt({})).toEqual([['Beta', null]]);
    expect(await worksAt({ validAt: '2024-05-07T12:00:00Z' })).toEqual([['Acme', '2024-05-08T00:00:00.000Z']]);
    // What the memory believed on Wednesday about Wednesday: Acme, open-ended (it did not know yet).
    expect(await worksAt({ validAt: '2024-05-08T12:00:00Z', recordedAt: '2024-05-08T12:00:00Z' })).toEqual([['Acme', null]]);
    expect(await worksAt({ validAt: '2024-05-08T12:00:00Z', recordedAt: '2024-05-08T12:00:00Z', consistency: 'replay' })).toEqual([['Acme', null]]);
    // Who worked at Beta, by the object's name.
    const atBeta = await ok(client, 'read_facts', { dst: 'beta' });
    expect(atBeta.facts.map((f: any) => atBeta.names[f.src])).toEqual(['Alice']);

    const found = await ok(client, 'find_entities', { name: 'ALICE' });
    expect(found.entities).toEqual([expect.objectContaining({ name: 'Alice', types: [] })]);
    const events = await ok(client, 'search_memory', { query: 'Alice moved to Beta', validAt: '*' });
    expect(events.items.map((i: any) => i.text).join(' ')).toMatch(/Alice moved from Acme to Beta/);

    // Checking an answer before giving it: claims by name, and a draft in words.
    const byName = await ok(client, 'check_claims', { claims: [{ src: 'Alice', rel: 'works_at', dst: 'Acme' }], validAt: '2024-05-09T12:00:00Z' });
    expect(byName.verdicts.map((v: any) => [v.verdict, v.facts.length])).toEqual([['contradicted', 1]]);
    expect(byName.resolved.map((r: any) => [r.field, r.by])).toEqual([
      ['claims[0].src', 'name'],
      ['claims[0].dst', 'name'],
    ]);
    const draft = await ok(client, 'check_claims', {
      text: 'I work at Acme.',
      speaker: 'Alice',
      validAt: '2024-05-08T12:00:00Z',
      recordedAt: '2024-05-08T12:00:00Z',
    });
    expect(draft.verdicts.map((v: any) => v.verdict)).toEqual(['supported']);
    // A name the memory does not know: the claim is unknown, not an error.
    const unknown = await ok(client, 'check_claims', { claims: [{ src: 'Zed', rel: 'works_at', dst: 'Acme' }] });
    expect(unknown.verdicts.map((v: any) => v.verdict)).toEqual(['unknown']);

    // SPEC 5.4: the memory's evolution, and the topics it keeps; a second run appends nothing new.
    const evolved = await ok(client, 'consolidate', {});
    expect(evolved).toMatchObject({ cooled: 0, warmed: 0, mergeSuggestions: expect.any(Array) });
    const again = await ok(client, 'consolidate', {});
    expect(again.appended.every((a: any) => a.status === 'duplicate')).toBe(true);
    expect(await ok(client, 'list_topics', {})).toMatchObject({ cut: { validAt: '*' }, topics: expect.any(Array), next: null });
    expect((await ok(client, 'search_memory', { query: 'Alice', tiers: ['hot', 'cold'] })).items[0].salience).toEqual(expect.any(Number));
  });

  it('creates a missing entity only when the call says createMissing, once however often the call is repeated', async () => {
    const before = await exportOf('story', TOKENS.names);
    const refusal = await refused(client, 'remember_fact', { src: 'Carol', rel: 'works_at', dst: 'Acme' });
    expect(refusal).toMatch(/^UNKNOWN_ENTITY: src "Carol" is neither an entity id nor the name or alias of an entity/);
    expect(refusal).toMatch(/createMissing: true/);
    expect(refusal).toMatch(/find_entities/);
    expect(await exportOf('story', TOKENS.names)).toBe(before);
    for (let i = 0; i < 2; i++) await ok(client, 'remember_fact', { src: 'Carol', rel: 'works_at', dst: 'Acme', createMissing: true });
    expect((await ok(client, 'find_entities', { name: 'carol' })).entities).toHaveLength(1);
    // Remembering an entity by a name it has updates it: one Carol, now with a type and an alias.
    const again = await ok(client, 'remember_entity', { name: 'CAROL', types: ['person'], aliases: ['Caz'] });
    expect(again.results[0].status).toBe('applied');
    const carol = (await ok(client, 'find_entities', { name: 'caz' })).entities;
    expect(carol).toEqual([expect.objectContaining({ name: 'Carol', types: ['person'], aliases: ['CAROL', 'Caz'] })]);
    expect((await ok(client, 'find_entities', { type: 'person' })).entities.map((e: any) => e.name)).toEqual(['Carol']);
  });

  it('takes a dst that names no entity as a value when the call says so', async () => {
    const refusal = await refused(client, 'remember_fact', { src: 'Alice', rel: 'hobby', dst: 'climbing' });
    expect(refusal).toMatch(/^UNKNOWN_ENTITY: dst "climbing"/);
    expect(refusal).toMatch(/dstLiteral: true/);
    const hobby = await ok(client, 'remember_fact', { src: 'Alice', rel: 'hobby', dst: 'climbing', dstLiteral: true });
    expect(hobby.resolved).toEqual([expect.objectContaining({ field: 'src', by: 'name' }), { field: 'dst', value: 'climbing', literal: 'climbing' }]);
    await ok(client, 'remember_fact', { src: 'Alice', rel: 'age', dst: 38 });
    await ok(client, 'remember_fact', { src: 'Alice', rel: 'plays', dst: { literal: 'Acme' } });
    // dstLiteral does not hide an entity: "Beta" still links to Beta.
    const linked = await ok(client, 'remember_fact', { src: 'Alice', rel: 'likes', dst: 'Beta', dstLiteral: true });
    expect(linked.resolved[1]).toMatchObject({ field: 'dst', by: 'name' });
    const facts = await ok(client, 'read_facts', { src: 'Alice', validAt: '*' });
    const dstOf = (rel: string) => facts.facts.find((f: any) => f.rel === rel)?.dst;
    expect([dstOf('hobby'), dstOf('age'), dstOf('plays')]).toEqual([
      { literal: 'climbing', datatype: 'string' },
      { literal: 38, datatype: 'number' },
      { literal: 'Acme', datatype: 'string' },
    ]);
    expect(facts.names[dstOf('likes')]).toBe('Beta');
    expect((await ok(client, 'read_facts', { dst: 'climbing' })).facts.map((f: any) => f.rel)).toEqual(['hobby']);
  });

  it('refuses an ambiguous name, listing the candidates; an id always says which one', async () => {
    await ok(client, 'remember_entity', { entityId: 'sam-1', name: 'Sam', types: ['person'] });
    await ok(client, 'remember_entity', { entityId: 'sam-2', name: 'Sam Jones', aliases: ['sam'] });
    const before = await exportOf('story', TOKENS.names);
    const refusal = await refused(client, 'remember_fact', { src: 'Sam', rel: 'works_at', dst: 'Acme' });
    expect(refusal).toMatch(
      /^AMBIGUOUS_ENTITY: src "Sam" is a name or alias of 2 entities: sam-1 \(name "Sam"; types person\); sam-2 \(name "Sam Jones"; aliases "sam"\)/,
    );
    expect(refusal).toMatch(/pass one of these ids/);
    expect(await refused(client, 'read_facts', { src: 'sam' })).toMatch(/^AMBIGUOUS_ENTITY/);
    expect(await refused(client, 'remember_entity', { name: 'Sam', types: ['x'] })).toMatch(/^AMBIGUOUS_ENTITY: name "Sam".*pass entityId/);
    expect(await exportOf('story', TOKENS.names)).toBe(before);
    const byId = await ok(client, 'remember_fact', { src: 'sam-2', rel: 'works_at', dst: 'Acme' });
    expect(byId.resolved[0]).toEqual({ field: 'src', value: 'sam-2', entityId: 'sam-2', by: 'id' });
    // An id wins over a name: "sam-1" is an id here, though no entity is named so.
    await ok(client, 'remember_entity', { entityId: 'x-1', name: 'sam-1' });
    expect((await ok(client, 'read_facts', { src: 'sam-1' })).resolved[0]).toMatchObject({ entityId: 'sam-1', by: 'id' });
    expect((await ok(client, 'find_entities', { name: 'sam', match: 'prefix' })).entities.map((e: any) => e.entityId)).toEqual([
      'sam-1',
      'sam-2',
      'x-1',
    ]);
  });

  it('resolves names in a batch, where an entity an earlier command declares is known to the later ones', async () => {
    const batch = await ok(client, 'remember_batch', {
      memoryId: 'names',
      commands: [
        { op: 'UPSERT_ENTITY', name: 'Dana', aliases: ['Dee'] },
        { op: 'UPSERT_EDGE', src: 'dee', rel: 'knows', dst: 'Eve' },
        { op: 'UPSERT_EDGE', src: 'Dana', rel: 'nickname', dst: { literal: 'D' } },
      ],
      createMissing: true,
    });
    expect(batch.results.map((r: any) => r.status)).toEqual(['applied', 'applied', 'applied', 'applied']);
    expect(batch.resolved.map((r: any) => [r.field, r.value, r.by])).toEqual([
      ['commands[1].src', 'dee', 'name'],
      ['commands[1].dst', 'Eve', 'created'],
      ['commands[2].src', 'Dana', 'name'],
    ]);
    const knows = await ok(client, 'read_facts', { memoryId: 'names', src: 'Dana', rel: 'knows' });
    expect(knows.facts.map((f: any) => knows.names[f.dst])).toEqual(['Eve']);
    // Without createMissing nothing of the batch is written, and the error names the command.
    const refusal = await refused(client, 'remember_batch', {
      memoryId: 'names',
      commands: [
        { op: 'UPSERT_ENTITY', name: 'Finn' },
        { op: 'UPSERT_EDGE', src: 'Finn', rel: 'knows', dst: 'Gus' },
      ],
    });
    expect(refusal).toMatch(/^UNKNOWN_ENTITY: commands\[1\]\.dst "Gus"/);
    expect((await ok(client, 'find_entities', { memoryId: 'names', name: 'finn' })).entities).toEqual([]);
  });
});
