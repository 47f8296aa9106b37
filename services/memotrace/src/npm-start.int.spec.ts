import { type ChildProcess, execSync, spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { findFreePort } from '@memotrace/postgres/free-port';
import { apiAt } from './testing/test-service';

/**
 * `npm start` on a machine with no PostgreSQL configured: the process starts its
 * own embedded server, keeps data in MEMOTRACE_DATA_DIR across restarts, and
 * shuts down cleanly on SIGTERM.
 */
const repo = resolve(__dirname, '../../..');
const { start: startScript, prestart }: Record<string, string> = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')).scripts;

async function startProcess(dataDir: string, port: number): Promise<ChildProcess> {
  const env: NodeJS.ProcessEnv = { ...process.env, MEMOTRACE_DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: 'warn' };
  delete env['DATABASE_URL'];
  // npm start needs neither Kafka nor OpenSearch; npm test exports both for their own specs.
  delete env['KAFKA_BROKERS'];
  delete env['OPENSEARCH_URL'];
  // What `npm start` runs, spawned directly so the test sees the service's own exit code.
  const [command, ...args] = startScript!.split(' ');
  const child = spawn(command === 'node' ? process.execPath : join(repo, 'node_modules/.bin', command!), args, {
    cwd: repo,
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`npm start exited with ${child.exitCode}: ${stderr}`);
    const ready = await fetch(`http://127.0.0.1:${port}/readyz`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ready) return child;
    if (Date.now() > deadline) throw new Error(`npm start not ready after 60 s: ${stderr}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function stopProcess(child: ChildProcess): Promise<number | null> {
  const exited = new Promise<number | null>((resolveExit) => child.once('exit', (code) => resolveExit(code)));
  child.kill('SIGTERM');
  return exited;
}

describe('npm start (embedded PostgreSQL)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'memotrace-start-'));
  chmodSync(dataDir, 0o755);
  // npm runs `prestart` (the build) before `start`.
  beforeAll(() => void execSync(prestart!, { cwd: repo, stdio: 'inherit' }));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('is what the start script runs (compiled JavaScript in node itself, so Ctrl-C reaches it directly; its V8 heap capped)', () => {
    expect(prestart).toBe('node infra/scripts/build.mjs');
    expect(startScript).toBe('node --enable-source-maps --max-old-space-size=1024 dist/memotrace/main.js');
  });

  it('serves the API, and keeps the memory across a restart', async () => {
    const port = await findFreePort();
    const first = await startProcess(dataDir, port);
    try {
      const api = apiAt(`http://127.0.0.1:${port}`);
      const write = await api.commands('persisted', [
        { op: 'UPSERT_ENTITY', entityId: 'gus', name: 'Gus', recordedAt: '2024-01-01T00:00:00Z' },
        {
          op: 'UPSERT_EDGE',
          factId: 'gus-home',
          src: 'gus',
          rel: 'home',
          dst: { literal: 'Oslo' },
          validFrom: '2024-01-01T00:00:00Z',
          recordedAt: '2024-01-01T00:00:00Z',
        },
      ]);
      expect(write.status).toBe(200);
    } finally {
      expect(await stopProcess(first)).toBe(0);
    }
    const second = await startProcess(dataDir, port);
    try {
      const facts = await apiAt(`http://127.0.0.1:${port}`).get('/v1/memories/persisted/facts?validAt=*');
      expect(facts.body.facts.map((f: { factId: string; dst: unknown }) => [f.factId, f.dst])).toEqual([
        ['gus-home', { literal: 'Oslo', datatype: 'string' }],
      ]);
    } finally {
      expect(await stopProcess(second)).toBe(0);
    }
  }, 180_000);
});
