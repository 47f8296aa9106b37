/**
 * Runs a command against a throw-away embedded PostgreSQL 18:
 *   npx tsx infra/scripts/with-embedded-pg.ts -- npx jest libs/log-store
 * DATABASE_URL is set for the child; exits with the child's exit code; postgres is
 * stopped and the temp dir removed on every path (including SIGINT/SIGTERM/SIGHUP).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { constants, tmpdir } from 'node:os';
import * as path from 'node:path';
import { type RunningPostgres, startEmbeddedPostgres, takeOverEmbeddedShutdown } from '@memotrace/postgres';

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

const separator = process.argv.indexOf('--');
const [command, ...args] = separator === -1 ? process.argv.slice(2) : process.argv.slice(separator + 1);
if (!command) {
  console.error('usage: tsx infra/scripts/with-embedded-pg.ts -- <command> [args...]');
  process.exit(2);
}

const tempDir = mkdtempSync(path.join(tmpdir(), 'memotrace-pg-'));
chmodSync(tempDir, 0o755); // mkdtemp gives 0700; as root the server runs as the `postgres` user
const removeTempDir = () => {
  try {
    rmSync(tempDir, { recursive: true, force: true });
  } catch (error) {
    console.error(`could not remove ${tempDir}:`, error);
  }
};
process.on('exit', removeTempDir); // last resort; normally cleanup() already did it

let starting: Promise<RunningPostgres> | undefined;
let child: ChildProcess | undefined;
let shuttingDown = false;

for (const signal of SIGNALS) {
  process.on(signal, () => {
    if (shuttingDown) return;
    shuttingDown = true;
    child?.kill(signal);
    void cleanup().finally(() => process.exit(128 + constants.signals[signal]));
  });
}

/** Waits for a startup in progress (initdb must not write into a removed dir), then stops and removes. */
async function cleanup(): Promise<void> {
  const server = await starting?.catch(() => undefined);
  await server?.stop().catch((error: unknown) => console.error('stopping embedded postgres failed:', error));
  removeTempDir();
}

async function main(): Promise<number> {
  await takeOverEmbeddedShutdown();
  starting = startEmbeddedPostgres({ dataDir: path.join(tempDir, 'data') });
  const server = await starting;
  if (shuttingDown) return 1;
  const running = spawn(command!, args, { stdio: 'inherit', env: { ...process.env, DATABASE_URL: server.url } });
  child = running;
  return new Promise<number>((resolve) => {
    running.once('error', (error) => {
      console.error(`failed to run ${command}:`, error.message);
      resolve(127);
    });
    running.once('exit', (code, signal) => resolve(code ?? 128 + (signal ? constants.signals[signal] : 0)));
  });
}

main()
  .catch((error: unknown) => {
    console.error(error);
    return 1;
  })
  .then(async (code) => {
    if (shuttingDown) return; // the signal handler finishes and exits
    await cleanup();
    process.exit(code);
  });
