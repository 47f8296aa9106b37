import { loadApiKeys } from '@memotrace/http-kit';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { type TestService, startTestService } from './testing/test-service';

/**
 * The agents walkthrough of docs/cli-and-mcp.md runs verbatim: its first ```sh block makes a key (the
 * `npm install` / `npm start` lines are this test's service), every later ```sh block
 * prints exactly the block after it (the CLI as services/cli/bin/memotrace, the service
 * at this test's URL).
 */
const ROOT = resolve(__dirname, '../../..');
const doc = readFileSync(join(ROOT, 'docs/cli-and-mcp.md'), 'utf8');
const start = doc.indexOf('### From a fresh clone to a fact seen through MCP');
const end = doc.slice(start + 1).search(/\n##+ /);
const section = doc.slice(start, end === -1 ? undefined : start + 1 + end);
const blocks = [...section.matchAll(/```sh\n([\s\S]*?)```(?:\n```(?:json)?\n([\s\S]*?)```)?/g)].map((m) => ({ script: m[1]!, expected: m[2] }));

const bash = (script: string, cwd: string, env: NodeJS.ProcessEnv) =>
  promisify(execFile)('bash', ['-c', `set -eo pipefail\n${script}`], { cwd, env, encoding: 'utf8' });
const local = (script: string) => script.replaceAll('npm run -s cli --', join(ROOT, 'services/cli/bin/memotrace'));

describe('the agents walkthrough (docs/cli-and-mcp.md)', () => {
  let t: TestService | undefined;
  afterAll(() => t?.stop());

  it('has a setup block and three checked steps', () => {
    expect(start).toBeGreaterThan(0);
    expect(blocks.length).toBe(4);
    expect(blocks.slice(1).every((b) => b.expected !== undefined)).toBe(true);
  });

  it('prints what the walkthrough says, from a new key to the fact through MCP (HTTP and stdio)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'readme-agents-'));
    const setup = blocks[0]!.script.split('\n').filter((line) => !/^(npm install|MEMOTRACE_API_KEYS_FILE=.* npm start)/.test(line.trim()));
    await bash(local(setup.join('\n')), dir, process.env);
    t = await startTestService({ apiKeys: loadApiKeys({ MEMOTRACE_API_KEYS_FILE: join(dir, 'keys.json') }) });
    const env = { ...process.env, MEMOTRACE_URL: t.url };
    let exports = '';
    for (const { script, expected } of blocks.slice(1)) {
      exports +=
        script
          .split('\n')
          .filter((line) => line.startsWith('export '))
          .join('\n') + '\n';
      const { stdout } = await bash(exports + local(script).replaceAll('http://127.0.0.1:8080', t.url), dir, env);
      expect(stdout).toBe(expected);
    }
  }, 120_000);
});
