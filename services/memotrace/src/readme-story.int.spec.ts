import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { type TestService, startTestService } from './testing/test-service';

/**
 * The README's story runs verbatim: every ```sh block (curl + jq) against a fresh
 * service prints exactly the ```json block that follows it.
 */
const readme = readFileSync(join(__dirname, '../../../README.md'), 'utf8');
const story = readme.slice(readme.indexOf('## The story'), readme.indexOf('\n## ', readme.indexOf('## The story') + 1));
const steps = [...story.matchAll(/```sh\n([\s\S]*?)```\n```json\n([\s\S]*?)```/g)].map((m) => ({ script: m[1]!, expected: m[2]! }));

describe('README story', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService();
  });
  afterAll(() => t.stop());

  it('has the steps of the story', () => {
    expect(steps.length).toBeGreaterThanOrEqual(8);
  });

  it('prints what the README says, step by step', async () => {
    let variables = '';
    for (const { script, expected } of steps) {
      const local = script.replaceAll('http://127.0.0.1:8080', t.url);
      variables +=
        local
          .split('\n')
          .filter((line) => /^[A-Z]+=/.test(line))
          .join('\n') + '\n';
      // Async: the service answering curl runs in this very process.
      const { stdout: output } = await promisify(execFile)('bash', ['-c', `set -e\n${variables}\n${local}`], { encoding: 'utf8' });
      expect(output).toBe(expected);
    }
  });
});
