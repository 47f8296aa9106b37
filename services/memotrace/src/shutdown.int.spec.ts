import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ServiceProcess, startServiceProcess } from './testing/service-process';
import { apiAt } from './testing/test-service';

/**
 * Ctrl-C on the service: the terminal sends SIGINT to its whole foreground process group. The
 * service then stops HTTP, lets its projectors finish the batch in flight, closes its pools and
 * stops its embedded PostgreSQL last, exits 0, and logs nothing at error level: an error caused
 * by the shutdown itself is no error. Each run stops the service while its projectors are busy
 * with the writes just made, one of them still in flight.
 *
 * The service runs as `node --import tsx`, as under a supervisor (docs/operations.md): the `tsx`
 * command's own signal relay SIGKILLs a child that does not acknowledge a signal almost at once,
 * which a busy machine makes a matter of luck. A service killed that way leaves its PostgreSQL
 * running; the last test shows the next start stopping it.
 */
const RUNS = 4;
const PINO_ERROR = 50;
const STOP_WITHIN_MS = 20_000;

/**
 * The service from its sources with the embedded PostgreSQL, in a process group of its own as a
 * terminal gives `npm start`: the signal goes to all of it.
 */
const startService = (dataDir: string) =>
  startServiceProcess({ env: { MEMOTRACE_DATA_DIR: dataDir, LOG_LEVEL: 'info', DATABASE_URL: undefined }, detached: true });

const entities = (memoryId: string, batch: number) =>
  Array.from({ length: 1000 }, (_, i) => ({ op: 'UPSERT_ENTITY', entityId: `${memoryId}-${batch}-${i}`, name: `Person ${batch} ${i}` }));

/** The service's log, every line a JSON record (a raw stack trace on stderr is no log line). */
function logOf(running: ServiceProcess): { level: number; msg?: string }[] {
  const lines = running
    .output()
    .split('\n')
    .filter((line) => line.trim() !== '');
  expect(lines.filter((line) => !line.startsWith('{'))).toEqual([]);
  return lines.map((line) => JSON.parse(line) as { level: number; msg?: string });
}

/** Ctrl-C: SIGINT to the process group; the service exits 0, promptly, having logged no error and stopped its PostgreSQL. */
async function interrupt(running: ServiceProcess, dataDir: string): Promise<void> {
  const signalled = Date.now();
  process.kill(-running.child.pid!, 'SIGINT');
  const code = await running.exited;
  // Promptly: no keep-alive connection of a client holds the HTTP server open.
  expect(Date.now() - signalled).toBeLessThan(STOP_WITHIN_MS);
  const log = logOf(running);
  expect(log.filter((r) => r.level >= PINO_ERROR)).toEqual([]);
  expect(log.map((r) => r.msg)).toContain('SIGINT received, shutting down');
  expect(code).toBe(0);
  // PostgreSQL removes its pid file when it shuts down: the service stopped it, none is left behind.
  expect(existsSync(join(dataDir, 'pg', 'postmaster.pid'))).toBe(false);
}

describe('Ctrl-C on the service (SIGINT to its process group)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'memotrace-shutdown-'));
  chmodSync(dataDir, 0o755); // postgres, run as its own user when the tests run as root, reads it
  let running: ServiceProcess | undefined;
  afterAll(async () => {
    if (running && running.child.exitCode === null) {
      process.kill(running.child.pid!, 'SIGTERM');
      await running.exited;
    }
    // A failed run may have left its PostgreSQL behind.
    const leftover = join(dataDir, 'pg', 'postmaster.pid');
    if (existsSync(leftover)) process.kill(Number(readFileSync(leftover, 'utf8').split('\n')[0]), 'SIGINT');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it.each(Array.from({ length: RUNS }, (_, run) => [run + 1, run * 40]))(
    'run %i: stops cleanly while the projectors work, %i ms into a write in flight',
    async (run, delayMs) => {
      running = await startService(dataDir);
      const api = apiAt(running.url);
      const memoryId = `shutdown-${run}`;
      for (const batch of [1, 2]) expect((await api.commands(memoryId, entities(memoryId, batch))).status).toBe(200);
      // A third write, still in flight when the signal lands (or just answered): either way it is no error.
      const inFlight = api.commands(memoryId, entities(memoryId, 3)).catch((error: Error) => error);
      await new Promise((r) => setTimeout(r, delayMs));
      await interrupt(running, dataDir);
      await inFlight;
    },
    90_000,
  );

  it('stops, at the next start, the PostgreSQL a service killed outright left running', async () => {
    const killed = await startService(dataDir);
    running = killed;
    process.kill(killed.child.pid!, 'SIGKILL'); // the service alone: its PostgreSQL runs on
    await killed.exited;
    expect(existsSync(join(dataDir, 'pg', 'postmaster.pid'))).toBe(true);

    running = await startService(dataDir);
    expect(logOf(running).map((r) => r.msg)).toContainEqual(expect.stringMatching(/^stopped the PostgreSQL \(pid \d+\) that a process now gone/));
    expect((await apiAt(running.url).get('/v1/memories/shutdown-1/facts?validAt=*')).status).toBe(200);
    await interrupt(running, dataDir);
  }, 90_000);
});
