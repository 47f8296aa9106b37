import { MemoTraceClient, MemoTraceError } from './client';

/** A fetch that answers from a script, one response per call, and counts the calls. */
function scripted(...answers: [status: number, body: unknown, headers?: Record<string, string>][]) {
  const calls: string[] = [];
  const fetch = (async (url: string) => {
    calls.push(url);
    const [status, body, headers] = answers[Math.min(calls.length, answers.length) - 1]!;
    return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
  }) as unknown as typeof globalThis.fetch;
  return { fetch, calls };
}

const away = [503, { error: { code: 'DATABASE_UNAVAILABLE', message: 'the database is not reachable' } }, { 'retry-after': '0.05' }] as const;

describe('MemoTraceClient retries', () => {
  it('waits for a service whose database is away, as its Retry-After says, beyond the usual attempts', async () => {
    const { fetch, calls } = scripted([...away], [...away], [...away], [...away], [...away], [200, { memories: [], nextCursor: null }]);
    const client = new MemoTraceClient({ url: 'http://memotrace.test', fetch, retries: 2, retryDelayMs: 10 });
    await expect(client.request('GET', '/v1/memories')).resolves.toEqual({ memories: [], nextCursor: null });
    expect(calls).toHaveLength(6);
  });

  it('gives up once the bound is spent, and says so', async () => {
    const { fetch, calls } = scripted([...away]);
    const client = new MemoTraceClient({ url: 'http://memotrace.test', fetch, retryWithinMs: 120 });
    const error = await client.request('GET', '/v1/memories').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MemoTraceError);
    expect(error).toMatchObject({ status: 503, code: 'DATABASE_UNAVAILABLE', retryAfterMs: 50 });
    expect((error as Error).message).toMatch(/gave up after \d+ attempts/);
    expect(calls.length).toBeGreaterThanOrEqual(2);
  });

  it('does not retry a request that asks not to be', async () => {
    const { fetch, calls } = scripted([...away]);
    const client = new MemoTraceClient({ url: 'http://memotrace.test', fetch });
    await expect(client.request('GET', '/v1/memories', { retry: false })).rejects.toMatchObject({ code: 'DATABASE_UNAVAILABLE' });
    expect(calls).toHaveLength(1);
  });
});
