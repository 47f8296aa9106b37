import { type ChildProcess, spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { freePort } from '@memotrace/http-kit';
import { type TestDatabase, createTestDatabase } from '@memotrace/postgres';

/**
 * `DELETE /v1/memories/{id}` answered by the command process while a query process (and a second
 * command process) run beside it: neither may go on answering from what it cached of the deleted
 * memory (replay's log and folded state, the search corpus, the command side's folded state), and
 * a memory written again under the same id is the new one only.
 */
const ROOT = resolve(__dirname, '../../..');
const T0 = '2024-01-01T00:00:00.000Z';
const T1 = '2024-02-01T00:00:00.000Z';

describe('a memory deleted by another process', () => {
  let db: TestDatabase;
  const children: { process: ChildProcess; output: string }[] = [];
  let commandUrl = '';
  let otherCommandUrl = '';
  let queryUrl = '';

  const start = (file: string, env: Record<string, string>) => {
    const child = {
      output: '',
      process: spawn(process.execPath, ['--import', 'tsx', file], {
        cwd: ROOT,
        env: { ...process.env, DATABASE_URL: db.url, LOG_LEVEL: 'warn', EMBEDDINGS: 'off', ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
    };
    child.process.stdout!.on('data', (d: Buffer) => (child.output += d.toString()));
    child.process.stderr!.on('data', (d: Buffer) => (child.output += d.toString()));
    children.push(child);
  };
  const ready = async (url: string) => {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const ok = await fetch(`${url}/readyz`).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) return;
      if (Date.now() > deadline) throw new Error(`${url} not ready:\n${children.map((c) => c.output.slice(-1000)).join('\n---\n')}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };

  beforeAll(async () => {
    db = await createTestDatabase();
    const [commandPort, otherCommandPort, queryPort] = [await freePort(), await freePort(), await freePort()];
    commandUrl = `http://127.0.0.1:${commandPort}`;
    otherCommandUrl = `http://127.0.0.1:${otherCommandPort}`;
    queryUrl = `http://127.0.0.1:${queryPort}`;
    // The first process migrates the database; the others start once it has.
    start('services/command/src/main.ts', { HOST: '127.0.0.1', PORT: String(commandPort) });
    await ready(commandUrl);
    start('services/command/src/main.ts', { HOST: '127.0.0.1', PORT: String(otherCommandPort) });
    start('services/query/src/main.ts', { HOST: '127.0.0.1', PORT: String(queryPort) });
    start('services/projector/src/main.ts', {});
    await Promise.all([ready(otherCommandUrl), ready(queryUrl)]);
  }, 120_000);

  afterAll(async () => {
    await Promise.all(
      children.map(({ process: c }) => {
        if (c.exitCode !== null || c.signalCode !== null) return undefined;
        const exited = new Promise((done) => c.once('exit', done));
        c.kill('SIGTERM');
        return exited;
      }),
    );
    await db?.drop();
  });

  const request = async (url: string, method: string, path: string, body?: unknown) => {
    const response = await fetch(url + path, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : null };
  };
  const post = async (url: string, memoryId: string, commands: unknown[]) => {
    const written = await request(url, 'POST', `/v1/memories/${memoryId}/commands`, { commands });
    expect(written.status).toBe(200);
    return written.body as { position: number; results: { status: string }[] };
  };
  const factIds = async (memoryId: string, query: string) => {
    const read = await request(queryUrl, 'GET', `/v1/memories/${memoryId}/facts?validAt=*&${query}`);
    return read.status === 200 ? (read.body.facts as { factId: string }[]).map((f) => f.factId) : read.body.error.code;
  };

  it('the query process and another command process drop what they cached; the id then names a new memory', async () => {
    const old = await post(commandUrl, 'shared', [
      { op: 'UPSERT_ENTITY', commandId: 'ann', entityId: 'ann', name: 'Ann', recordedAt: T0 },
      { op: 'UPSERT_ENTITY', commandId: 'oslo', entityId: 'oslo', name: 'Oslo', recordedAt: T0 },
      { op: 'UPSERT_EDGE', commandId: 'ann-oslo', factId: 'ann-oslo', src: 'ann', rel: 'lives_in', dst: 'oslo', validFrom: T0, recordedAt: T0 },
      { op: 'RECORD_MENTION', commandId: 'said', mentionId: 'said', docId: 'chat', text: 'Ann loves the fjords of Oslo', recordedAt: T0 },
    ]);
    // Warm every cache: both sources of the query process, its search corpus, and the other command process's state.
    expect(await factIds('shared', `minPosition=${old.position}`)).toEqual(['ann-oslo']);
    expect(await factIds('shared', 'consistency=replay')).toEqual(['ann-oslo']);
    // The search corpus of the query process, warmed too. On a loaded machine its first answer may come before it holds the
    // memory (seen twice in CI on the embedded server, never locally): ask again, bounded, as a client waiting for it would.
    const search = () => request(queryUrl, 'POST', '/v1/memories/shared/search', { query: 'fjords Oslo', minPosition: old.position });
    let before = await search();
    for (let waited = 0; !JSON.stringify(before.body).includes('fjords') && waited < 30_000; waited += 250) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      before = await search();
    }
    expect(JSON.stringify(before.body)).toMatch(/fjords/);
    expect((await post(otherCommandUrl, 'shared', [{ op: 'UPSERT_ENTITY', commandId: 'ann', name: 'Ann' }])).results[0]!.status).toBe('duplicate');

    const deleted = await request(commandUrl, 'DELETE', '/v1/memories/shared');
    expect(deleted).toEqual({ status: 200, body: { memoryId: 'shared', deleted: true, records: 4 } });
    expect(await factIds('shared', 'consistency=replay')).toBe('UNKNOWN_MEMORY');

    // The same id again, written through the other command process: the same commandIds are new there.
    const again = await post(otherCommandUrl, 'shared', [
      { op: 'UPSERT_ENTITY', commandId: 'ann', entityId: 'ann', name: 'Ann', recordedAt: T1 },
      { op: 'UPSERT_ENTITY', commandId: 'rome', entityId: 'rome', name: 'Rome', recordedAt: T1 },
      { op: 'UPSERT_EDGE', commandId: 'ann-rome', factId: 'ann-rome', src: 'ann', rel: 'lives_in', dst: 'rome', validFrom: T1, recordedAt: T1 },
    ]);
    expect(again.position).toBe(3);
    expect(again.results.map((r) => r.status)).toEqual(['applied', 'applied', 'applied']);
    expect(await factIds('shared', `minPosition=${again.position}`)).toEqual(['ann-rome']);
    expect(await factIds('shared', 'consistency=replay')).toEqual(['ann-rome']);
    const after = await request(queryUrl, 'POST', '/v1/memories/shared/search', { query: 'fjords Oslo', minPosition: again.position });
    expect(after.status).toBe(200);
    expect(JSON.stringify(after.body)).not.toMatch(/fjords|oslo/i);
  }, 120_000);
});
