import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';

/**
 * The embedded server runs in a process group of its own (embedded.ts), so a process killed
 * outright (SIGKILL, the OOM killer, `tsx` killing a child that is too busy to acknowledge a
 * Ctrl-C at once) leaves it running, holding the data directory. The process that starts a
 * server records its pid in the data directory; the next start stops a server whose starter is
 * gone instead of failing on PostgreSQL's lock file.
 */
const STARTER_FILE = 'memotrace-starter.pid';

/** Data directories whose server this process started and has not stopped. */
const startedHere = new Set<string>();

export function recordStarter(dataDir: string): void {
  writeFileSync(path.join(dataDir, STARTER_FILE), `${process.pid}\n`);
  startedHere.add(dataDir);
}

export function forgetStarter(dataDir: string): void {
  startedHere.delete(dataDir);
}

/**
 * Stops the server running in `dataDir` when the process that started it is gone; returns its
 * pid then. A server of a live process (or of unknown origin) is left alone: starting another
 * one then fails on the lock file, as it should.
 */
export async function stopOrphanedServer(dataDir: string, timeoutMs: number): Promise<number | undefined> {
  const postmaster = readPid(path.join(dataDir, 'postmaster.pid'));
  if (postmaster === undefined || !isAlive(postmaster) || !(await isPostgresOf(postmaster, dataDir))) return undefined;
  const starter = readPid(path.join(dataDir, STARTER_FILE));
  if (starter === undefined) return undefined;
  // This very process may have the starter's pid (a container restarted as pid 1): then only its own record counts.
  const starterRuns = starter === process.pid ? startedHere.has(dataDir) : isAlive(starter);
  if (starterRuns) return undefined;
  process.kill(postmaster, 'SIGINT'); // fast shutdown: nobody is connected any more
  if (!(await exited(postmaster, timeoutMs))) {
    process.kill(postmaster, 'SIGQUIT');
    await exited(postmaster, timeoutMs);
  }
  return postmaster;
}

/** The first line of a pid file, when it is one. */
function readPid(file: string): number | undefined {
  try {
    const pid = Number(readFileSync(file, 'utf8').split('\n')[0]);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'; // alive, another user's
  }
}

/** A stale pid file's pid may have been reused: only a postgres serving this directory is stopped. */
async function isPostgresOf(pid: number, dataDir: string): Promise<boolean> {
  try {
    const { stdout } = await promisify(execFile)('ps', ['-o', 'args=', '-p', String(pid)]);
    return /postgres/.test(stdout) && stdout.includes(`-D ${dataDir} `);
  } catch {
    return false;
  }
}

async function exited(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (isAlive(pid)) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return true;
}
