import { type ChildProcess, execFile } from 'node:child_process';
import { readFileSync, statfsSync } from 'node:fs';
import { chmod, mkdtemp, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { type RunningPostgres, startEmbeddedPostgres } from '@memotrace/postgres';
import { readConfig } from '@memotrace/runtime';
import pino from 'pino';
import { type RunningService, startMemoTrace } from './app';
import { startServiceProcess } from './testing/service-process';

/**
 * Faults of the service's own database (docs/operations.md): the embedded PostgreSQL's postmaster is
 * killed (SIGKILL) while a client streams batches of commands. The service starts it again by itself;
 * meanwhile every request answers 503 DATABASE_UNAVAILABLE with a Retry-After, never 500, and the log says
 * so once per change of state. The client resends a batch that was not answered 200 (commands carry their
 * ids): every acknowledged command is in the export exactly once. A database that cannot be started again
 * ends the process non-zero (`npm start`'s own process here), so a supervisor starts it afresh.
 */
jest.setTimeout(180_000);

const BATCHES = 40;
const PER_BATCH = 50;
const KILL_AFTER = 8;
const M = 'faults';

/** What a client saw streaming BATCHES batches of commands, resending each until it is answered 200. */
interface Stream {
  statuses: Map<number, number>;
  acknowledged: Set<string>;
  retryAfter: string | null;
  /** From the fault to the first batch answered after it, in ms. */
  servingAgainMs: number;
}

/** Streams the batches to memory `memoryId`, calling `fault` before batch KILL_AFTER. */
async function stream(
  url: string,
  memoryId: string,
  fault: () => void | Promise<void>,
  options: { onRefused?: (status: number) => Promise<void> } = {},
): Promise<Stream> {
  const out: Stream = { statuses: new Map(), acknowledged: new Set(), retryAfter: null, servingAgainMs: 0 };
  const send = (commands: unknown[]) =>
    fetch(`${url}/v1/memories/${memoryId}/commands`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ commands }),
    });
  expect((await send([{ op: 'UPSERT_ENTITY', commandId: 'alice', entityId: 'alice', name: 'Alice' }])).status).toBe(200);
  let faultAt = 0;
  for (let b = 0; b < BATCHES; b++) {
    if (b === KILL_AFTER) {
      await fault();
      faultAt = Date.now();
    }
    const commands = Array.from({ length: PER_BATCH }, (_, i) => ({
      op: 'UPSERT_EDGE',
      commandId: `c-${b}-${i}`,
      factId: `f-${b}-${i}`,
      src: 'alice',
      rel: 'noted',
      dst: { literal: `note ${b}.${i}`, datatype: 'string' },
      validFrom: '2024-05-06T09:00:00Z',
    }));
    for (const deadline = Date.now() + 60_000; ;) {
      const response = await send(commands).catch(() => null);
      const status = response?.status ?? 0;
      out.statuses.set(status, (out.statuses.get(status) ?? 0) + 1);
      if (response !== null && status === 200) {
        const answer = (await response.json()) as { results: { commandId: string; status: string }[] };
        for (const r of answer.results) if (r.status === 'applied' || r.status === 'duplicate') out.acknowledged.add(r.commandId);
        if (faultAt > 0 && out.servingAgainMs === 0) out.servingAgainMs = Date.now() - faultAt;
        break;
      }
      if (status === 503 || status === 507) {
        out.retryAfter = response!.headers.get('retry-after');
        await options.onRefused?.(status);
      }
      const text = await response?.text();
      if (status >= 400 && status < 500) throw new Error(`batch ${b} refused: ${status} ${text}`);
      if (Date.now() > deadline) throw new Error(`batch ${b} not accepted within 60 s (last status ${status})`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  return out;
}

/** Every acknowledged command in the memory's export exactly once, and nothing else; no 500 on the way. */
async function expectEachAcknowledgedOnce(url: string, memoryId: string, seen: Stream): Promise<void> {
  expect(seen.statuses.get(500)).toBeUndefined();
  expect(seen.acknowledged.size).toBe(BATCHES * PER_BATCH);
  expect(seen.servingAgainMs).toBeLessThan(30_000);
  if ((seen.statuses.get(503) ?? 0) > 0) expect(Number(seen.retryAfter)).toBeGreaterThan(0);
  const exported = (await (await fetch(`${url}/v1/memories/${memoryId}/export`)).text())
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { op: string; commandId: string });
  const edges = exported.filter((c) => c.op === 'UPSERT_EDGE').map((c) => c.commandId);
  expect(new Set(edges).size).toBe(edges.length);
  expect(edges.sort()).toEqual([...seen.acknowledged].sort());
}

describe('the embedded database killed mid-stream', () => {
  let dataDir: string;
  let service: RunningService;
  const lines: string[] = [];

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'mt-faults-'));
    await chmod(dataDir, 0o755); // traversable by the postgres user when tests run as root
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) });
    service = await startMemoTrace({ ...readConfig({}), dataDir, port: 0, host: '127.0.0.1' }, logger, { embeddings: null });
  });
  afterAll(async () => {
    await service?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('starts it again and serves on: no 500, each acknowledged command once, the log says it once per change', async () => {
    const seen = await stream(service.url, M, () => {
      process.kill(Number(readFileSync(path.join(dataDir, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]), 'SIGKILL');
    });
    await expectEachAcknowledgedOnce(service.url, M, seen);

    const said = lines.map((line) => (JSON.parse(line) as { msg: string }).msg);
    expect(said.filter((m) => /exited \(SIGKILL\) without being stopped/.test(m))).toHaveLength(1);
    expect(said.filter((m) => /running again/.test(m))).toHaveLength(1);
    expect(said.filter((m) => /^database unavailable/.test(m)).length).toBeLessThanOrEqual(1);
    expect(said.filter((m) => m === 'request failed')).toEqual([]);
    // The loops that retry in the background (projectors, watchers, extraction) say the outage once each.
    const outages = said.filter((m) => /the database is unavailable; retrying/.test(m));
    expect(outages.length).toBe(new Set(outages).size);
    expect(said.filter((m) => m === 'projection failed' || m === 'memory deletion watcher')).toEqual([]);
  });
});

/** What `promise` gives within `ms`, else 'running'; the timer does not outlive the answer. */
async function within<T>(promise: Promise<T>, ms: number): Promise<T | 'running'> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'running'>((resolve) => (timer = setTimeout(() => resolve('running'), ms)));
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** The service's own process on `dataDir` (embedded database, no embeddings), once it is ready. */
const startServiceOn = (dataDir: string) =>
  startServiceProcess({ env: { DATABASE_URL: undefined, MEMOTRACE_DATA_DIR: dataDir, EMBEDDINGS: 'off', LOG_LEVEL: 'info' } });

describe('the embedded database killed for good', () => {
  it('ends the service with a non-zero exit and a line that says why', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'mt-faults-exit-'));
    await chmod(dataDir, 0o755);
    let child: ChildProcess | undefined;
    try {
      const service = await startServiceOn(dataDir);
      child = service.child;
      const pg = path.join(dataDir, 'pg');
      process.kill(Number(readFileSync(path.join(pg, 'postmaster.pid'), 'utf8').split('\n')[0]), 'SIGKILL');
      await rename(pg, `${pg}-moved`); // nothing to start from any more
      const code = await within(service.exited, 45_000);
      expect(code).toBe(1);
      expect(service.output()).toMatch(/could not be started again/);
    } finally {
      child?.kill('SIGKILL');
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});

describe('an external PostgreSQL restarted mid-stream', () => {
  let dataDir: string;
  let database: RunningPostgres;
  let service: RunningService;

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'mt-faults-external-'));
    await chmod(dataDir, 0o755);
    // A server of the test's own, as DATABASE_URL: the service did not start it, so only its restart brings it back.
    database = await startEmbeddedPostgres({ dataDir: path.join(dataDir, 'external') });
    service = await startMemoTrace({ ...readConfig({}), databaseUrl: database.url, dataDir, port: 0, host: '127.0.0.1' }, pino({ level: 'silent' }), {
      embeddings: null,
    });
  });
  afterAll(async () => {
    await service?.close();
    await database?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('reconnects when it is back, without a restart of its own: no 500, each acknowledged command once', async () => {
    const port = Number(new URL(database.url).port);
    const seen = await stream(service.url, M, async () => {
      await database.stop();
      // Down for a while, then back on the same address.
      setTimeout(() => void startEmbeddedPostgres({ dataDir: path.join(dataDir, 'external'), port }).then((back) => (database = back)), 3_000);
    });
    expect(seen.statuses.get(503)).toBeGreaterThan(0);
    await expectEachAcknowledgedOnce(service.url, M, seen);
    // The projectors resumed from their checkpoints: a read at the last position sees every note.
    const facts = await fetch(`${service.url}/v1/memories/${M}/facts?rel=noted&limit=1&minPosition=${BATCHES * PER_BATCH + 1}`);
    expect(facts.status).toBe(200);
  });
});

describe('a full disk under the data directory', () => {
  // A small tmpfs the test mounts itself (as root, as CI runs): the embedded database's data directory on it.
  let mounted: string | undefined;
  let child: ChildProcess | undefined;
  afterAll(async () => {
    // Stopped as a supervisor stops it, so it stops its database too (a killed service leaves that running).
    if (child !== undefined && child.exitCode === null) {
      const exited = new Promise((resolve) => child!.once('exit', resolve));
      child.kill('SIGTERM');
      if ((await within(exited, 30_000)) === 'running') child.kill('SIGKILL');
    }
    if (mounted !== undefined) {
      await new Promise((resolve) => execFile('umount', ['-l', mounted!], resolve));
      await rm(mounted, { recursive: true, force: true });
    }
  });

  it('answers 507 STORAGE_FULL (or 503), never 500, and writes again once there is space; nothing acknowledged is lost', async () => {
    if (process.getuid?.() !== 0) throw new Error('mounting a small tmpfs for the full-disk test needs root');
    const dir = await mkdtemp(path.join(tmpdir(), 'mt-faults-disk-'));
    await new Promise<void>((resolve, reject) =>
      execFile('mount', ['-t', 'tmpfs', '-o', 'size=256m,mode=0755', 'tmpfs', dir], (error) => (error ? reject(error) : resolve())),
    );
    mounted = dir;
    const service = await startServiceOn(dir);
    child = service.child;
    const { url, output } = service;
    // Everything left but a few kilobytes goes to one file; removing it gives the space back.
    const filler = path.join(dir, 'filler');
    const { bavail, bsize } = statfsSync(dir);
    await new Promise<void>((resolve, reject) =>
      execFile('fallocate', ['-l', String(Math.max(4096, bavail * bsize - 64 * 1024)), filler], (error) => (error ? reject(error) : resolve())),
    );
    const refusals: number[] = [];
    const seen = await stream(url, 'disk', () => undefined, {
      // Once the disk refused a write, it gets its space back.
      onRefused: async (status) => {
        refusals.push(status);
        await rm(filler, { force: true });
      },
    });
    expect(refusals.length).toBeGreaterThan(0);
    expect(refusals.every((status) => status === 507 || status === 503)).toBe(true);
    await expectEachAcknowledgedOnce(url, 'disk', seen);
    expect(output()).not.toMatch(/"msg":"request failed"/);
  });
});
