import { type ChildProcess, spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { findFreePort } from '@memotrace/postgres/free-port';

export const REPO = resolve(__dirname, '../../../..');

/** node's arguments that run the service from its sources, as `npm run start:dev` does. */
export const SERVICE_FROM_SOURCES: readonly string[] = ['--import', 'tsx', 'services/memotrace/src/main.ts'];

/** The service as a process of its own, ready. */
export interface ServiceProcess {
  child: ChildProcess;
  url: string;
  /** What it wrote so far: its stdout, then its stderr. */
  output(): string;
  exited: Promise<number | null>;
}

export interface ServiceProcessOptions {
  /** node's arguments; the service from its sources unless given. */
  args?: readonly string[];
  /** Variables over the test's own: `undefined` removes one. */
  env?: Record<string, string | undefined>;
  /** A process group of its own, as a terminal gives `npm start`. */
  detached?: boolean;
}

const READY_WITHIN_MS = 60_000;

/**
 * Starts the service on a free port and waits until `/readyz` answers 200. Kafka and OpenSearch
 * are left out unless `env` names them (npm test exports them for their own specs). A process
 * that exits first, or is not ready in time, fails the start with what it wrote.
 */
export async function startServiceProcess(options: ServiceProcessOptions = {}): Promise<ServiceProcess> {
  const port = await findFreePort();
  const env: NodeJS.ProcessEnv = { ...process.env };
  const given = { KAFKA_BROKERS: undefined, OPENSEARCH_URL: undefined, PORT: String(port), ...options.env };
  for (const [name, value] of Object.entries(given)) {
    if (value === undefined) delete env[name];
    else env[name] = value;
  }
  const child = spawn(process.execPath, options.args ?? SERVICE_FROM_SOURCES, {
    cwd: REPO,
    env,
    detached: options.detached ?? false,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const output = () => stdout + stderr;
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  const url = `http://127.0.0.1:${port}`;
  for (const deadline = Date.now() + READY_WITHIN_MS; ;) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`the service exited with ${child.exitCode ?? child.signalCode}:\n${output()}`);
    const ready = await fetch(`${url}/readyz`).then(
      (response) => response.status === 200,
      () => false,
    );
    if (ready) return { child, url, output, exited };
    if (Date.now() > deadline) {
      process.kill(options.detached ? -child.pid! : child.pid!, 'SIGKILL');
      throw new Error(`the service was not ready within ${READY_WITHIN_MS / 1000} s:\n${output()}`);
    }
    await new Promise((done) => setTimeout(done, 200));
  }
}
