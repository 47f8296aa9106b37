import { hashApiKey, parseApiKeys } from '@memotrace/http-kit';
import { type TestService, startTestService } from '@memotrace/memotrace/testing';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const repo = resolve(__dirname, '../../..');
const bin = join(repo, 'services/cli/bin/memotrace');
const token = 'mt_cli-test';
const adminToken = 'mt_cli-admin';
const dpoToken = 'mt_cli-dpo';
let svc: TestService;

beforeAll(async () => {
  svc = await startTestService({
    apiKeys: parseApiKeys(
      JSON.stringify([
        { id: 'cli-user', hash: hashApiKey(token), memories: ['cli', 'cli-copy', 'cli-big', 'cli-partial', 'cli-atomic'], access: 'write' },
        { id: 'operator', hash: hashApiKey(adminToken), memories: ['*'], access: 'write' },
        { id: 'dpo', hash: hashApiKey(dpoToken), memories: ['*'], access: 'admin' },
      ]),
    ),
  });
});
afterAll(async () => {
  await svc?.stop();
});

function cli(
  args: string[],
  options: { stdin?: string; key?: string | null; env?: NodeJS.ProcessEnv; tty?: boolean } = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, MEMOTRACE_API_KEY: options.key === null ? '' : (options.key ?? token), ...options.env };
  // tty: run under script(1), so stdout and stderr are a terminal (both arrive on stdout).
  const quoted = (a: string) => `'${a.replaceAll("'", "'\\''")}'`;
  const [command, argv] = options.tty
    ? ['script', ['-qec', [bin, '--url', svc.url, ...args].map(quoted).join(' '), '/dev/null']]
    : [bin, ['--url', svc.url, ...args]];
  return new Promise((done, fail) => {
    const child = spawn(command as string, argv as string[], { env, cwd: tmpdir() });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', fail);
    child.on('close', (code) => done({ code: code ?? -1, stdout, stderr }));
    child.stdin.end(options.stdin ?? '');
  });
}

/** The commands in a memory's log (0 when the memory has none, i.e. does not exist). */
async function loggedCommands(memoryId: string, key = token): Promise<number> {
  const response = await fetch(`${svc.url}/v1/memories/${memoryId}/export`, { headers: { authorization: `Bearer ${key}` } });
  if (response.status === 404) return 0;
  expect(response.status).toBe(200);
  return (await response.text()).split('\n').filter((line) => line.trim() !== '').length;
}

const lines = [
  { op: 'UPSERT_ENTITY', commandId: 'c1', entityId: 'alice', name: 'Alice', recordedAt: '2024-05-06T09:00:00Z' },
  { op: 'UPSERT_ENTITY', commandId: 'c2', entityId: 'acme', name: 'Acme', recordedAt: '2024-05-06T09:00:00Z' },
  {
    op: 'UPSERT_EDGE',
    commandId: 'c3',
    factId: 'alice-acme',
    src: 'alice',
    rel: 'works_at',
    dst: 'acme',
    validFrom: '2024-05-06T00:00:00Z',
    recordedAt: '2024-05-06T09:00:00Z',
  },
]
  .map((c) => JSON.stringify(c))
  .join('\n');

describe('memotrace CLI', () => {
  it('writes JSONL from a file and from stdin, then reads facts as a table and as JSON', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cli-'));
    const file = join(dir, 'commands.jsonl');
    writeFileSync(file, lines + '\n');
    const written = await cli(['--memory', 'cli', 'write', file]);
    expect(written).toMatchObject({ code: 0, stdout: '3 commands: 3 applied, 0 unchanged, 0 duplicate; position 3\n' });
    const again = await cli(['--memory', 'cli', 'write', '--json'], { stdin: lines });
    expect(again.code).toBe(0);
    expect(
      again.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).status),
    ).toEqual(['duplicate', 'duplicate', 'duplicate']);

    const table = await cli(['--memory', 'cli', 'read', '--src', 'alice', '--valid-at', '2024-05-07T00:00:00Z']);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/^factId\s+src\s+rel\s+dst/);
    expect(table.stdout).toMatch(/alice-acme\s+alice\s+works_at\s+acme/);
    const json = await cli(['--memory', 'cli', 'read', '--json', '--replay']);
    expect(JSON.parse(json.stdout)).toMatchObject({ source: 'replay', facts: [{ factId: 'alice-acme' }] });
  }, 120000);

  it('shows history, audit, search and checks, exports and imports', async () => {
    expect((await cli(['--memory', 'cli', 'history', 'alice-acme'])).stdout).toMatch(/2024-05-06T00:00:00.000Z/);
    const audit = await cli(['--memory', 'cli', 'audit', 'alice-acme', '--json']);
    expect(JSON.parse(audit.stdout).events[0]).toMatchObject({ commandId: 'c3', actor: 'cli-user' });
    expect((await cli(['--memory', 'cli', 'search', 'Alice', '--json'])).code).toBe(0);
    // An answer checked before it is given: first person, with who "I" is, as a table and as JSON.
    const checked = await cli(['--memory', 'cli', 'check', 'I work at Acme.', '--speaker', 'Alice', '--valid-at', '2024-05-07T00:00:00Z']);
    expect(checked.stdout).toMatch(/^verdict\s+claim\s+facts\n/);
    expect(checked.stdout).toMatch(/supported\s+alice works_at acme\s+alice-acme/);
    const before = await cli(['--memory', 'cli', 'check', 'Alice works at Acme.', '--valid-at', '2024-05-05T00:00:00Z', '--json', '--replay']);
    expect(JSON.parse(before.stdout)).toMatchObject({
      source: 'replay',
      verdicts: [{ verdict: 'not_yet_valid', facts: [{ factId: 'alice-acme' }] }],
    });
    expect((await cli(['--memory', 'cli', 'check', 'Hello there!'])).stdout).toBe('no claim in the text\n');
    const exported = await cli(['--memory', 'cli', 'export']);
    expect(exported.stdout.trim().split('\n')).toHaveLength(3);
    const imported = await cli(['--memory', 'cli-copy', 'import'], { stdin: exported.stdout });
    expect(imported.code).toBe(0);
    expect(imported.stdout).toMatch(/^3 commands imported, position \d+\n$/);
    // SPEC 5.4: the memory's evolution now (nothing to cool, gather or merge here), and its topics.
    expect((await cli(['--memory', 'cli', 'consolidate'])).stdout).toBe('cooled 0, warmed 0, appended 0 of 0 derived commands\n');
    expect((await cli(['--memory', 'cli', 'topics'])).stdout).toBe('no topic\n');
    expect(JSON.parse((await cli(['--memory', 'cli', 'topics', '--json'])).stdout)).toMatchObject({ topics: [], next: null });
    expect((await cli(['--memory', 'cli', 'search', 'Alice', '--cold'])).stdout).toMatch(/salience/);
  }, 120000);

  it('fails with one clear line and a non-zero exit code', async () => {
    const bad = await cli(['--memory', 'cli', 'write'], { stdin: '{"op": "NOPE"}' });
    expect(bad.code).toBe(1);
    expect(bad.stderr.trim().split('\n')).toHaveLength(1);
    expect(bad.stderr).toMatch(/^memotrace: line 1: op: Invalid discriminator value\. .*; nothing written\n$/);
    const notJson = await cli(['--memory', 'cli', 'write'], { stdin: '{oops' });
    expect(notJson).toMatchObject({ code: 1, stderr: 'memotrace: line 1: not valid JSON; nothing written\n' });
    const forbidden = await cli(['--memory', 'elsewhere', 'read']);
    expect(forbidden.stderr).toMatch(/^memotrace: FORBIDDEN \(HTTP 403\)/);
    const noKey = await cli(['--memory', 'cli', 'read'], { key: null });
    expect(noKey.stderr).toMatch(/^memotrace: UNAUTHORIZED \(HTTP 401\)/);
    expect(noKey.code).toBe(1);
    const noMemory = await cli(['read']);
    expect(noMemory).toMatchObject({ code: 1, stderr: 'memotrace: --memory <memoryId> is required\n' });
  }, 120000);

  it('records dialog turns from JSONL, one request per session run; a bad line writes nothing', async () => {
    const turnLines = [
      { sessionId: 'chat-1', turnId: 't1', speaker: 'Alice', text: 'Hi Bob', at: '2024-05-06T08:00:00Z' },
      { sessionId: 'chat-1', turnId: 't2', speaker: 'Bob', text: 'Hi Alice', at: '2024-05-06T08:01:00Z' },
      { sessionId: 'chat-2', turnId: 't3', speaker: 'Alice', text: 'Later', at: '2024-05-07T08:00:00Z' },
    ].map((t) => JSON.stringify(t));
    const bad = await cli(['--memory', 'cli-turns', 'turns', '--extraction', 'off'], {
      stdin: [...turnLines, '{"sessionId":"x","text":"no speaker","at":"2024-05-07T08:00:00Z"}'].join('\n'),
      key: adminToken,
    });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/line 4: speaker: .*nothing written/);
    expect(await loggedCommands('cli-turns', adminToken)).toBe(0);
    const sent = await cli(['--memory', 'cli-turns', 'turns', '--extraction', 'off', '--json'], { stdin: turnLines.join('\n'), key: adminToken });
    expect(sent.code).toBe(0);
    expect(
      sent.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line).results.length),
    ).toEqual([2, 1]);
    const again = await cli(['--memory', 'cli-turns', 'turns', '--extraction', 'off'], { stdin: turnLines.join('\n'), key: adminToken });
    expect(again.stdout).toMatch(/^3 turns sent, 0 recorded \(the rest were there already\), 0 derived commands applied/);
    expect(await loggedCommands('cli-turns', adminToken)).toBe(3);

    const all = await cli(['--memory', 'cli-turns', 'reextract'], { key: adminToken });
    expect(all).toMatchObject({ code: 0, stderr: '' });
    expect(all.stdout).toMatch(/^2 extraction jobs queued for 3 turns \(extractor \S+@\S+\)\n$/);
    const one = await cli(['--memory', 'cli-turns', 'reextract', '--session', 'chat-2', '--json'], { key: adminToken });
    expect(JSON.parse(one.stdout)).toMatchObject({ jobs: 1, turns: 1 });
    const unknown = await cli(['--memory', 'cli-nothing', 'reextract'], { key: adminToken });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/^memotrace: UNKNOWN_MEMORY \(HTTP 404\)/);

    const gate = (...args: string[]) => cli(['--memory', 'cli-turns', 'gate', ...args], { key: adminToken });
    expect((await gate()).stdout).toMatch(/^gate 0\.5 \(the server's default\), extractor \S+@\S+\n$/);
    expect((await gate('0.7')).stdout).toMatch(/^gate 0\.7 \(the memory's own; the server's default is 0\.5\)/);
    expect(JSON.parse((await gate('--json')).stdout)).toMatchObject({ gate: 0.7, memoryGate: 0.7, defaultGate: 0.5 });
    expect(JSON.parse((await gate('default', '--json')).stdout)).toMatchObject({ gate: 0.5, memoryGate: null });
    const refused = await gate('1.5');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/gate: expected a number in \[0, 1\] or 'default', got "1\.5"/);
  });

  it('counts applied, unchanged and duplicate results', async () => {
    const mixed = [
      { op: 'UPSERT_ENTITY', commandId: 'c1', entityId: 'alice', name: 'Alice', recordedAt: '2024-05-06T09:00:00Z' }, // sent before
      { op: 'UPSERT_ENTITY', entityId: 'acme', name: 'Acme' }, // nothing new
      { op: 'UPSERT_ENTITY', entityId: 'bob', name: 'Bob' },
    ];
    const written = await cli(['--memory', 'cli', 'write'], { stdin: mixed.map((c) => JSON.stringify(c)).join('\n') });
    expect(written).toMatchObject({ code: 0, stderr: '' });
    expect(written.stdout).toMatch(/^3 commands: 1 applied, 1 unchanged, 1 duplicate; position \d+\n$/);
  }, 120000);

  describe('a 1,200-line file whose last line is refused by the service', () => {
    const entities = Array.from({ length: 1199 }, (_, i) =>
      JSON.stringify({ op: 'UPSERT_ENTITY', entityId: `p-${i + 1}`, name: `Person ${i + 1}`, recordedAt: '2024-05-06T09:00:00Z' }),
    );
    const unknownFact = JSON.stringify({ op: 'ARCHIVE_EDGE', factId: 'no-such-fact', recordedAt: '2024-05-06T09:00:00Z' });
    const fileOf = (lines: string[]) => {
      const file = join(mkdtempSync(join(tmpdir(), 'cli-')), 'commands.jsonl');
      writeFileSync(file, lines.join('\n') + '\n');
      return file;
    };

    it('writes lines 1-1000, then says exactly which lines were written, which failed and why, and which were not', async () => {
      const result = await cli(['--memory', 'cli-partial', 'write', fileOf([...entities, unknownFact])]);
      expect(result.code).toBe(3);
      const position = /^1000 commands: 1000 applied, 0 unchanged, 0 duplicate; position (\d+)\n$/.exec(result.stdout)?.[1];
      expect(position).toBeDefined();
      expect(result.stderr).toMatch(
        new RegExp(
          `^memotrace: line 1200: UNKNOWN_FACT \\(HTTP 404\\): factId: [^\\n]*no-such-fact[^\\n]*; ` +
            `lines 1-1000 written \\(position ${position}\\), lines 1001-1200 not written\\n$`,
        ),
      );
      expect(await loggedCommands('cli-partial')).toBe(1000);
    }, 120000);

    it('writes nothing when a line is invalid, naming it by its line number', async () => {
      const result = await cli(['--memory', 'cli-atomic', 'write', fileOf([...entities, '{"op": "UPSERT_ENTITY", "entityId": "x"}'])]);
      expect(result).toMatchObject({ code: 1, stdout: '', stderr: 'memotrace: line 1200: name: required; nothing written\n' });
      expect(await loggedCommands('cli-atomic')).toBe(0);
    }, 120000);

    it('with --atomic, refuses a file too large for one batch and writes nothing', async () => {
      const result = await cli(['--memory', 'cli-atomic', 'write', '--atomic', fileOf([...entities, unknownFact])]);
      expect(result).toMatchObject({
        code: 1,
        stdout: '',
        stderr:
          'memotrace: --atomic: 1200 commands (lines 1-1200) are more than the 1000 one atomic batch may hold; ' +
          'nothing written (without --atomic they go in several batches)\n',
      });
      expect(await loggedCommands('cli-atomic')).toBe(0);
    }, 120000);

    it('with --atomic, writes nothing when the last line of a file that fits one batch is refused', async () => {
      const result = await cli(['--memory', 'cli-atomic', 'write', '--atomic', fileOf([...entities.slice(0, 999), unknownFact])]);
      expect(result.code).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(/^memotrace: line 1000: UNKNOWN_FACT \(HTTP 404\): factId: [^\n]*; nothing written\n$/);
      expect(await loggedCommands('cli-atomic')).toBe(0);
      const whole = await cli(['--memory', 'cli-atomic', 'write', '--atomic', fileOf(entities.slice(0, 1000))]);
      expect(whole).toMatchObject({
        code: 0,
        stdout: expect.stringMatching(/^1000 commands: 1000 applied, 0 unchanged, 0 duplicate; position \d+\n$/),
      });
      expect(await loggedCommands('cli-atomic')).toBe(1000);
    }, 120000);
  });

  it('imports with progress lines on stderr when it is not a terminal, and a bar when it is', async () => {
    const big = Array.from({ length: 3000 }, (_, i) =>
      JSON.stringify({ op: 'UPSERT_ENTITY', commandId: `e-${i}`, entityId: `e-${i}`, name: `Entity ${i}`, recordedAt: '2024-05-06T09:00:00Z' }),
    ).join('\n');
    const imported = await cli(['--memory', 'cli-big', 'import'], { stdin: big, env: { MEMOTRACE_PROGRESS_INTERVAL_MS: '1' } });
    expect(imported.code).toBe(0);
    expect(imported.stdout).toMatch(/^3000 commands imported, position \d+\n$/);
    const lines = imported.stderr.trim().split('\n');
    expect(lines.length).toBeGreaterThanOrEqual(2);
    for (const line of lines)
      expect(line).toMatch(/^import (uploading|applying on the server): \d+\/3000 commands \(\d+%\), \d+ commands\/s, ETA (\d+s|\?)$/);
    expect(lines.at(-1)).toMatch(/^import applying on the server: 3000\/3000 commands \(100%\)/);

    // Through a terminal the log comes from a file: a pty is no place for 3000 lines of stdin.
    const file = join(mkdtempSync(join(tmpdir(), 'cli-')), 'big.jsonl');
    writeFileSync(file, big);
    const again = await cli(['--memory', 'cli-big', 'import', file], { tty: true });
    expect(again.code).not.toBe(0); // not empty any more
    expect(again.stdout).toMatch(/import \[[█░]+\] \d+% \| \d+\/3000 commands \| \d+ commands\/s \| ETA/);
    expect(again.stdout).toMatch(/memotrace: MEMORY_NOT_EMPTY \(HTTP 409\)/);
  }, 120000);

  it('rebuilds the facts projection to an instant, with progress and a one-line result', async () => {
    const rebuilt = await cli(['rebuild', '--projection', 'facts', '--to', '2024-05-07T00:00:00Z'], {
      key: adminToken,
      env: { MEMOTRACE_PROGRESS_INTERVAL_MS: '1' },
    });
    expect(rebuilt).toMatchObject({ code: 0 });
    expect(rebuilt.stdout).toMatch(/^snapshot rm_snapshot_\d+: \d+ events applied, position \d+, \d+ events\/s, \d+\.\d s\n$/);
    expect(rebuilt.stderr).toMatch(/^rebuild (building|indexing|switching|done): \d+\/\d+ events \(\d+%\), \d+ events\/s, ETA/m);
    expect(rebuilt.stderr.trim().split('\n').at(-1)).toMatch(/^rebuild done: (\d+)\/\1 events \(100%\)/);
    const json = await cli(['rebuild', '--to', '2024-05-07T00:00:00Z', '--json'], { key: adminToken, tty: true });
    expect(json.code).toBe(0);
    expect(json.stdout).toMatch(/rebuild \[[█░]+\] 100% \| (\d+)\/\1 events/);
    expect(JSON.parse(json.stdout.trim().split('\n').at(-1)!)).toMatchObject({
      state: 'done',
      to: '2024-05-07T00:00:00.000Z',
      result: { mode: 'snapshot' },
    });
  }, 120000);

  it('refuses a rebuild in one line: bad projection, bad instant, a key that is not for all memories', async () => {
    expect(await cli(['rebuild', '--projection', 'nope'], { key: adminToken })).toMatchObject({
      code: 1,
      stderr: 'memotrace: unknown projection nope (known: read-models, facts)\n',
    });
    const badTo = await cli(['rebuild', '--to', 'yesterday'], { key: adminToken });
    expect(badTo.code).toBe(1);
    expect(badTo.stderr).toMatch(/^memotrace: INVALID_REQUEST \(HTTP 400\).*\n$/);
    expect(badTo.stderr.split('\n')).toHaveLength(2);
    const forbidden = await cli(['rebuild', '--to', '2024-05-07T00:00:00Z']);
    expect(forbidden.code).toBe(1);
    expect(forbidden.stderr).toMatch(/^memotrace: FORBIDDEN \(HTTP 403\)[^\n]*\n$/);
  }, 120000);

  it('serves the memory as MCP tools on stdio (memotrace mcp)', async () => {
    const client = new Client({ name: 'cli-int-test', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: bin,
        args: ['--url', svc.url, '--memory', 'cli', 'mcp'],
        env: { PATH: process.env['PATH'] ?? '', MEMOTRACE_API_KEY: token },
        stderr: 'pipe',
      }),
    );
    try {
      const result = (await client.callTool({ name: 'read_facts', arguments: { src: 'alice', validAt: '2024-05-07T00:00:00Z' } })) as CallToolResult;
      expect(result.isError).toBeFalsy();
      expect(JSON.parse((result.content[0] as { text: string }).text).facts).toMatchObject([{ factId: 'alice-acme', dst: 'acme' }]);
    } finally {
      await client.close();
    }
  }, 60000);

  it('hashes keys for the operator', async () => {
    expect((await cli(['keys', 'hash', 'abc'])).stdout.trim()).toBe(hashApiKey('abc'));
    const created = JSON.parse((await cli(['keys', 'new', '--id', 'bot', '--memories', 'a,b', '--access', 'read'])).stdout);
    expect(created.key).toEqual({ id: 'bot', hash: hashApiKey(created.token), memories: ['a', 'b'], access: 'read' });
    const admin = JSON.parse((await cli(['keys', 'new', '--id', 'dpo', '--access', 'admin'])).stdout);
    expect(admin.key).toEqual({ id: 'dpo', hash: hashApiKey(admin.token), memories: ['*'], access: 'admin' });
    expect(await cli(['keys', 'new', '--id', 'x', '--access', 'root'])).toMatchObject({
      code: 1,
      stderr: 'memotrace: --access must be one of read, write, admin\n',
    });
  }, 60000);

  describe('erasure and deletion (admin keys)', () => {
    beforeAll(async () => {
      for (const memoryId of ['cli-erase', 'cli-del']) {
        expect(await cli(['--memory', memoryId, 'write'], { stdin: lines, key: dpoToken })).toMatchObject({ code: 0 });
      }
    }, 60000);

    it('erase sends one ERASE for the subject given: refused (403) for a key that is not admin, nothing written', async () => {
      const before = await loggedCommands('cli-erase', dpoToken);
      const refused = await cli(['--memory', 'cli-erase', 'erase', '--entity', 'alice', '--reason', 'asked to be forgotten'], { key: adminToken });
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/^memotrace: FORBIDDEN \(HTTP 403\): key "operator" has write access: ERASE needs an admin key[^\n]*\n$/);
      expect(await loggedCommands('cli-erase', dpoToken)).toBe(before);

      const erased = await cli(['--memory', 'cli-erase', 'erase', '--entity', 'alice', '--reason', 'asked to be forgotten'], { key: dpoToken });
      expect(erased).toMatchObject({ code: 0, stderr: '', stdout: `entity alice: erased, position ${before + 1}\n` });
      const audit = await fetch(`${svc.url}/v1/memories/cli-erase/export`, { headers: { authorization: `Bearer ${dpoToken}` } });
      expect(JSON.parse((await audit.text()).trim().split('\n').at(-1)!)).toMatchObject({
        op: 'ERASE',
        subject: { entityId: 'alice' },
        actor: 'dpo',
      });
      const json = await cli(['--memory', 'cli-erase', 'erase', '--fact', 'alice-acme', '--reason', 'also this', '--json'], { key: dpoToken });
      expect(json.code).toBe(0);
      expect(JSON.parse(json.stdout)).toMatchObject({ status: expect.stringMatching(/^(applied|unchanged)$/), ids: { factId: 'alice-acme' } });
    }, 60000);

    it('erase needs exactly one subject and a reason', async () => {
      expect(await cli(['--memory', 'cli-erase', 'erase', '--entity', 'a', '--fact', 'f', '--reason', 'r'], { key: dpoToken })).toMatchObject({
        code: 1,
        stderr: 'memotrace: erase needs exactly one of --entity, --fact, --mention, --doc\n',
      });
      expect((await cli(['--memory', 'cli-erase', 'erase', '--doc', 'd'], { key: dpoToken })).code).toBe(2);
      const unknown = await cli(['--memory', 'cli-erase', 'erase', '--mention', 'no-such-mention', '--reason', 'r'], { key: dpoToken });
      expect(unknown).toMatchObject({ code: 1, stderr: expect.stringMatching(/^memotrace: UNKNOWN_MENTION \(HTTP 404\)/) });
    }, 60000);

    it('delete-memory deletes a memory with an admin key and --yes, and nothing otherwise', async () => {
      expect(await cli(['delete-memory', 'cli-del'], { key: dpoToken })).toMatchObject({
        code: 1,
        stderr: 'memotrace: delete-memory cannot be undone: repeat with --yes to delete memory cli-del\n',
      });
      const refused = await cli(['delete-memory', 'cli-del', '--yes'], { key: adminToken });
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/^memotrace: FORBIDDEN \(HTTP 403\): key "operator" has write access: [^\n]*admin key/);
      expect(await loggedCommands('cli-del', dpoToken)).toBe(3);

      expect(await cli(['delete-memory', 'cli-del', '--yes'], { key: dpoToken })).toMatchObject({
        code: 0,
        stderr: '',
        stdout: 'memory cli-del deleted (3 log records)\n',
      });
      expect(await loggedCommands('cli-del', dpoToken)).toBe(0);
      const read = await cli(['--memory', 'cli-del', 'read'], { key: dpoToken });
      expect(read).toMatchObject({ code: 1, stderr: expect.stringMatching(/^memotrace: UNKNOWN_MEMORY \(HTTP 404\)/) });
      const again = await cli(['delete-memory', 'cli-del', '--yes', '--json'], { key: dpoToken });
      expect(again).toMatchObject({ code: 1, stderr: expect.stringMatching(/^memotrace: UNKNOWN_MEMORY \(HTTP 404\)/) });
    }, 60000);
  });
});
