import { createTestDatabase } from '@memotrace/postgres/testing';
import { readConfig } from '@memotrace/runtime';
import { Writable } from 'node:stream';
import pino from 'pino';
import { type RunningService, startMemoTrace } from './app';

/** Issue 6: structured JSON logs with request ids; Prometheus metrics for commands, errors, projection lag, query latency. */
describe('observability', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let service: RunningService;
  const lines: string[] = [];
  beforeAll(async () => {
    database = await createTestDatabase();
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(...chunk.toString().split('\n').filter(Boolean));
        done();
      },
    });
    service = await startMemoTrace({ ...readConfig({}), databaseUrl: database.url, port: 0, host: '127.0.0.1' }, pino({ level: 'info' }, sink));
  });
  afterAll(async () => {
    await service?.close();
    await database?.drop();
  });

  it('logs JSON lines, each request with its request id', async () => {
    // The listing answers 200 on a fresh service (a read of memory obs would be 404 UNKNOWN_MEMORY before its first command).
    const response = await fetch(`${service.url}/v1/memories`);
    expect(response.status).toBe(200);
    const records = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    const requestLogs = records.filter((r) => r['reqId'] !== undefined);
    expect(requestLogs.length).toBeGreaterThanOrEqual(2); // incoming request + request completed
    expect(requestLogs.find((r) => r['msg'] === 'request completed')).toMatchObject({
      reqId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      res: { statusCode: 200 },
    });
  });

  it('does not log health probes and metrics scrapes at info level', async () => {
    const before = lines.length;
    for (const path of ['/healthz', '/readyz', '/metrics']) expect((await fetch(service.url + path)).status).toBe(200);
    expect((await fetch(`${service.url}/v1/memories`)).status).toBe(200);
    const urls = lines
      .slice(before)
      .map((line) => JSON.parse(line) as { req?: { url?: string } })
      .flatMap((r) => (r.req?.url ? [r.req.url] : []));
    // The listing request is logged, so the log is live: the probes before it are absent.
    expect(urls).toEqual(['/v1/memories']);
  });

  it('exports command rate, errors by code, projection lag and latency histograms', async () => {
    const post = (body: unknown) =>
      fetch(`${service.url}/v1/memories/obs/commands`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    expect((await post({ commands: [{ op: 'UPSERT_ENTITY', entityId: 'alice', name: 'Alice' }] })).status).toBe(200);
    expect((await post({ commands: [{ op: 'NOPE' }] })).status).toBe(400);
    expect((await fetch(`${service.url}/v1/memories/obs/facts?validAt=*`)).status).toBe(200);
    const metrics = await (await fetch(`${service.url}/metrics`)).text();
    expect(metrics).toMatch(/^memotrace_commands_total\{status="applied"\} [1-9]/m);
    expect(metrics).toMatch(/^memotrace_errors_total\{code="INVALID_REQUEST"\} [1-9]/m);
    expect(metrics).toMatch(/^memotrace_projection_lag_events\{projection="read-models"\} \d+$/m);
    // The read is in the histogram (in its +Inf bucket: how fast it was is a benchmark's question, not a test's).
    expect(metrics).toMatch(
      /^memotrace_http_request_duration_seconds_bucket\{le="\+Inf",method="GET",route="\/v1\/memories\/:memoryId\/facts",status="200"\} [1-9]/m,
    );
  });
});
