import { type ChildProcess, execSync, spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { freePort } from '@memotrace/http-kit';
import { createTestDatabase } from '@memotrace/postgres/testing';

const ROOT = resolve(__dirname, '../../..');
const READY_TIMEOUT_MS = 180_000;

/** A MemoTrace process started like `npm start`, in a fresh database, measured from outside. */
export interface ServerUnderTest {
  url: string;
  /** The service's database (for pg_database_size, the checkpoint and the naive baseline). */
  databaseUrl: string;
  pid: number;
  /** Resident set size of the service process alone (PostgreSQL runs in its own processes). */
  rssBytes(): number;
  peakRssBytes(): number;
  /** CPU time (user + system) the service process has used so far. */
  cpuSeconds(): number;
  /**
   * Stops the process and starts it again on the same data directory (or database) and port:
   * a restart as an operator does it. `pid` and `databaseUrl` then name the new processes.
   */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

export interface StartOptions {
  /**
   * EMBEDDINGS of the child: a value, or null to leave it unset (the default model, as
   * `npm start` runs). Default: BENCH_SCALE_EMBEDDINGS, else off.
   */
  embeddings?: string | null;
}

/**
 * Without DATABASE_URL: the embedded default (a fresh MEMOTRACE_DATA_DIR per call;
 * the child starts its own PostgreSQL there). With DATABASE_URL: a fresh database on
 * that server. BENCH_SCALE_CPU_PROF=dir adds `node --cpu-prof` to the child.
 */
export async function startServer(env: NodeJS.ProcessEnv = process.env, options: StartOptions = {}): Promise<ServerUnderTest> {
  const port = await freePort();
  const external = env['DATABASE_URL'] ? await createTestDatabase() : undefined;
  const dataDir = mkdtempSync(join(tmpdir(), 'memotrace-scale-'));
  chmodSync(dataDir, 0o755); // the embedded server runs as the postgres user when we are root
  const profile = env['BENCH_SCALE_CPU_PROF'] ? ['--cpu-prof', `--cpu-prof-dir=${resolve(env['BENCH_SCALE_CPU_PROF'])}`] : [];
  const childEnv: NodeJS.ProcessEnv = {
    ...env,
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: env['BENCH_SCALE_LOG_LEVEL'] ?? 'warn',
    MEMOTRACE_DATA_DIR: dataDir,
    DATABASE_URL: external?.url ?? '',
    // The embedding model competes with ingest for the 2 cores; search falls back to BM25 without it.
    EMBEDDINGS: options.embeddings === undefined ? (env['BENCH_SCALE_EMBEDDINGS'] ?? 'off') : (options.embeddings ?? undefined),
    MEMOTRACE_API_KEYS: '',
    MEMOTRACE_API_KEYS_FILE: '',
  };
  if (childEnv['EMBEDDINGS'] === undefined) delete childEnv['EMBEDDINGS'];
  const url = `http://127.0.0.1:${port}`;
  const cleanup = () => {
    rmSync(dataDir, { recursive: true, force: true });
    return external?.drop();
  };
  const launch = () => launchService([...profile, ...nodeArgsOfStart()], childEnv, url);
  let running: RunningChild;
  try {
    running = await launch();
  } catch (error) {
    await cleanup();
    throw error;
  }
  let databaseUrl = external?.url ?? embeddedUrl(dataDir);
  const halt = async () => {
    running.child.kill('SIGTERM');
    const code = await running.exited;
    if (code !== 0 && code !== null) throw new Error(`the service exited with code ${code}`);
  };
  return {
    url,
    get databaseUrl() {
      return databaseUrl;
    },
    get pid() {
      return running.child.pid!;
    },
    rssBytes: () => statusKb(running.child.pid!, 'VmRSS') * 1024,
    peakRssBytes: () => statusKb(running.child.pid!, 'VmHWM') * 1024,
    cpuSeconds: () => cpuSeconds(running.child.pid!),
    async restart() {
      try {
        await halt();
        running = await launch();
      } catch (error) {
        await cleanup();
        throw error;
      }
      databaseUrl = external?.url ?? embeddedUrl(dataDir);
    },
    async stop() {
      try {
        await halt();
      } finally {
        await cleanup();
      }
    },
  };
}

interface RunningChild {
  child: ChildProcess;
  exited: Promise<number | null>;
}

/** Spawns the service and waits until it is ready; a service that does not get ready is stopped. */
async function launchService(args: string[], env: NodeJS.ProcessEnv, url: string): Promise<RunningChild> {
  const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ['ignore', 'inherit', 'inherit'] });
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  try {
    await waitReady(url, child);
  } catch (error) {
    child.kill('SIGTERM');
    await exited;
    throw error;
  }
  return { child, exited };
}

/** What `npm start` passes to node (its heap limit, the main file), after its `prestart` (the build) ran. */
function nodeArgsOfStart(): string[] {
  const { scripts } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  if (scripts['prestart']) execSync(scripts['prestart'], { cwd: ROOT, stdio: 'inherit' });
  const [command, ...args] = scripts['start']!.split(/\s+/);
  if (command !== 'node') throw new Error(`npm start runs ${command}, not node: the bench cannot start it the same way`);
  return args;
}

/** The embedded server's port is line 4 of postmaster.pid; user, password and database are the embedded defaults. */
function embeddedUrl(dataDir: string): string {
  const port = readFileSync(join(dataDir, 'pg', 'postmaster.pid'), 'utf8')
    .split('\n')[3]!
    .trim();
  return `postgres://postgres:memotrace@127.0.0.1:${port}/memotrace`;
}

async function waitReady(url: string, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the service exited during startup with code ${child.exitCode}`);
    const ready = await fetch(`${url}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ready) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`the service did not become ready within ${READY_TIMEOUT_MS / 1000} s`);
}

/** A field of /proc/<pid>/status in kB (0 when the process is gone or this is not Linux). */
export function statusKb(pid: number, field: string): number {
  try {
    const line = readFileSync(`/proc/${pid}/status`, 'utf8')
      .split('\n')
      .find((l) => l.startsWith(`${field}:`));
    return line ? Number(line.split(/\s+/)[1]) : 0;
  } catch {
    return 0; // not Linux, or the process is gone
  }
}

const CLOCK_TICKS_PER_SECOND = 100; // USER_HZ: 100 on every Linux architecture we run on

/** utime + stime of /proc/<pid>/stat (fields 14 and 15; the command name before them may hold spaces). */
function cpuSeconds(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND;
  } catch {
    return Number.NaN; // not Linux, or the process is gone
  }
}
