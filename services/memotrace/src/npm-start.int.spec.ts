import { execSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO, type ServiceProcess, startServiceProcess } from './testing/service-process';
import { apiAt } from './testing/test-service';

/**
 * `npm start` on a machine with no PostgreSQL configured: the process starts its
 * own embedded server, keeps data in MEMOTRACE_DATA_DIR across restarts, and
 * shuts down cleanly on SIGTERM.
 */
const { start: startScript, prestart }: Record<string, string> = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')).scripts;

/** What `npm start` runs, spawned directly so the test sees the service's own exit code; no PostgreSQL configured. */
function startProcess(dataDir: string): Promise<ServiceProcess> {
  const [command, ...args] = startScript!.split(' ');
  expect(command).toBe('node');
  return startServiceProcess({ args, env: { MEMOTRACE_DATA_DIR: dataDir, LOG_LEVEL: 'warn', DATABASE_URL: undefined } });
}

function stopProcess(running: ServiceProcess): Promise<number | null> {
  running.child.kill('SIGTERM');
  return running.exited;
}

describe('npm start (embedded PostgreSQL)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'memotrace-start-'));
  chmodSync(dataDir, 0o755);
  // npm runs `prestart` (the build) before `start`.
  beforeAll(() => void execSync(prestart!, { cwd: REPO, stdio: 'inherit' }));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('is what the start script runs (compiled JavaScript in node itself, so Ctrl-C reaches it directly; its V8 heap capped)', () => {
    expect(prestart).toBe('node infra/scripts/build.mjs');
    expect(startScript).toBe('node --enable-source-maps --max-old-space-size=1024 dist/memotrace/main.js');
  });

  it('serves the API, and keeps the memory across a restart', async () => {
    const first = await startProcess(dataDir);
    try {
      const api = apiAt(first.url);
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
    const second = await startProcess(dataDir);
    try {
      const facts = await apiAt(second.url).get('/v1/memories/persisted/facts?validAt=*');
      expect(facts.body.facts.map((f: { factId: string; dst: unknown }) => [f.factId, f.dst])).toEqual([
        ['gus-home', { literal: 'Oslo', datatype: 'string' }],
      ]);
    } finally {
      expect(await stopProcess(second)).toBe(0);
    }
  }, 180_000);
});
