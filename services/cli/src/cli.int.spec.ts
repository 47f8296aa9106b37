import { hashApiKey, parseApiKeys } from '@memotrace/http-kit';
import { type TestService, startTestService } from '@memotrace/memotrace/testing';
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const repo = resolve(__dirname, '../../..');
const bin = join(repo, 'services/cli/bin/memotrace');
const token = 'mt_cli-test';
let svc: TestService;

beforeAll(async () => {
  svc = await startTestService({ apiKeys: parseApiKeys(JSON.stringify([{ id: 'cli-user', hash: hashApiKey(token), memories: ['cli', 'cli-copy'], access: 'write' }])) });
});
afterAll(async () => {
  await svc?.stop();
});

function cli(args: string[], options: { stdin?: string; key?: string | null } = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, MEMOTRACE_API_KEY: options.key === null ? '' : (options.key ?? token) };
  return new Promise((done, fail) => {
    const child = spawn(bin, ['--url', svc.url, ...args], { env, cwd: tmpdir() });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', fail);
    child.on('close', (code) => done({ code: code ?? -1, stdout, stderr }));
    child.stdin.end(options.stdin ?? '');
  });
}

const lines = [
  { op: 'UPSERT_ENTITY', commandId: 'c1', entityId: 'alice', name: 'Alice', recordedAt: '2024-05-06T09:00:00Z' },
  { op: 'UPSERT_ENTITY', commandId: 'c2', entityId: 'acme', name: 'Acme', recordedAt: '2024-05-06T09:00:00Z' },
  { op: 'UPSERT_EDGE', commandId: 'c3', factId: 'alice-acme', src: 'alice', rel: 'works_at', dst: 'acme', validFrom: '2024-05-06T00:00:00Z', recordedAt: '2024-05-06T09:00:00Z' },
]
  .map((c) => JSON.stringify(c))
  .join('\n');

describe('memotrace CLI', () => {
  it('writes JSONL from a file and from stdin, then reads facts as a table and as JSON', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cli-'));
    const file = join(dir, 'commands.jsonl');
    writeFileSync(file, lines + '\n');
    const written = await cli(['--memory', 'cli', 'write', file]);
    expect(written).toMatchObject({ code: 0, stdout: '3 commands written, position 3\n' });
    const again = await cli(['--memory', 'cli', 'write', '--json'], { stdin: lines });
    expect(again.code).toBe(0);
    expect(again.stdout.trim().split('\n').map((l) => JSON.parse(l).status)).toEqual(['duplicate', 'duplicate', 'duplicate']);

    const table = await cli(['--memory', 'cli', 'read', '--src', 'alice', '--valid-at', '2024-05-07T00:00:00Z']);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/^factId\s+src\s+rel\s+dst/);
    expect(table.stdout).toMatch(/alice-acme\s+alice\s+works_at\s+acme/);
    const json = await cli(['--memory', 'cli', 'read', '--json', '--replay']);
    expect(JSON.parse(json.stdout)).toMatchObject({ source: 'replay', facts: [{ factId: 'alice-acme' }] });
  }, 120000);

  it('shows history, audit and search, exports and imports', async () => {
    expect((await cli(['--memory', 'cli', 'history', 'alice-acme'])).stdout).toMatch(/2024-05-06T00:00:00.000Z/);
    const audit = await cli(['--memory', 'cli', 'audit', 'alice-acme', '--json']);
    expect(JSON.parse(audit.stdout).events[0]).toMatchObject({ commandId: 'c3', actor: 'cli-user' });
    expect((await cli(['--memory', 'cli', 'search', 'Alice', '--json'])).code).toBe(0);
    const exported = await cli(['--memory', 'cli', 'export']);
    expect(exported.stdout.trim().split('\n')).toHaveLength(3);
    const imported = await cli(['--memory', 'cli-copy', 'import'], { stdin: exported.stdout });
    expect(imported.code).toBe(0);
    expect(imported.stdout).toMatch(/^3 commands imported, position \d+\n$/);
  }, 120000);

  it('fails with one clear line and a non-zero exit code', async () => {
    const bad = await cli(['--memory', 'cli', 'write'], { stdin: '{"op": "NOPE"}' });
    expect(bad.code).not.toBe(0);
    expect(bad.stderr.trim().split('\n')).toHaveLength(1);
    expect(bad.stderr).toMatch(/^memotrace: INVALID_REQUEST \(HTTP 400\)/);
    const notJson = await cli(['--memory', 'cli', 'write'], { stdin: '{oops' });
    expect(notJson).toMatchObject({ code: 1, stderr: 'memotrace: line 1 is not valid JSON\n' });
    const forbidden = await cli(['--memory', 'elsewhere', 'read']);
    expect(forbidden.stderr).toMatch(/^memotrace: FORBIDDEN \(HTTP 403\)/);
    const noKey = await cli(['--memory', 'cli', 'read'], { key: null });
    expect(noKey.stderr).toMatch(/^memotrace: UNAUTHORIZED \(HTTP 401\)/);
    expect(noKey.code).toBe(1);
    const noMemory = await cli(['read']);
    expect(noMemory).toMatchObject({ code: 1, stderr: 'memotrace: --memory <memoryId> is required\n' });
  }, 120000);

  it('hashes keys for the operator', async () => {
    expect((await cli(['keys', 'hash', 'abc'])).stdout.trim()).toBe(hashApiKey('abc'));
    const created = JSON.parse((await cli(['keys', 'new', '--id', 'bot', '--memories', 'a,b', '--access', 'read'])).stdout);
    expect(created.key).toEqual({ id: 'bot', hash: hashApiKey(created.token), memories: ['a', 'b'], access: 'read' });
  }, 60000);
});
