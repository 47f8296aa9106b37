/**
 * The benchmark's HTTP client: Node's fetch (undici), whose connections stay open
 * between requests, so a timed request is one round trip on a warm connection.
 */
export interface Timed<T> {
  body: T;
  /** Request sent to body parsed, on the client. */
  clientMs: number;
  /** The service's own time (Server-Timing `app;dur`), NaN when absent. */
  serverMs: number;
}

export async function request<T>(url: string, init?: RequestInit, okStatuses: readonly number[] = [200]): Promise<Timed<T> & { status: number }> {
  const t0 = performance.now();
  const response = await fetch(url, init);
  const text = await response.text();
  const clientMs = performance.now() - t0;
  if (!okStatuses.includes(response.status)) throw new Error(`${init?.method ?? 'GET'} ${url}: HTTP ${response.status} ${text.slice(0, 500)}`);
  const serverMs = Number(/dur=([\d.]+)/.exec(response.headers.get('server-timing') ?? '')?.[1] ?? Number.NaN);
  return { body: JSON.parse(text) as T, clientMs, serverMs, status: response.status };
}

interface CommandsResponse {
  position: number;
  results: Array<{ status: string }>;
}

/** One batch through `POST /v1/memories/{id}/commands`; every command must be applied. */
export async function postCommands(url: string, memoryId: string, commands: readonly unknown[]): Promise<number> {
  const { body } = await request<CommandsResponse>(`${url}/v1/memories/${encodeURIComponent(memoryId)}/commands`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ commands }),
  });
  const notApplied = body.results.findIndex((r) => r.status !== 'applied');
  if (notApplied >= 0)
    throw new Error(
      `a generated command was not applied in ${memoryId}: ${JSON.stringify(commands[notApplied])} -> ${JSON.stringify(body.results[notApplied])}`,
    );
  return body.position;
}

/**
 * Read-your-writes: a read with `minPosition` answers 200 once the read models have the
 * position; its wait is bounded, so a slow projection answers an error and is asked again.
 */
export async function readYourWrites(url: string, memoryId: string, src: string, position: number, timeoutMs = 1_800_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const path = `${url}/v1/memories/${encodeURIComponent(memoryId)}/facts?src=${encodeURIComponent(src)}&minPosition=${position}`;
  for (;;) {
    const response = await fetch(path);
    await response.arrayBuffer();
    if (response.status === 200) return;
    if (response.status !== 503 && response.status !== 504 && response.status !== 408)
      throw new Error(`read-your-writes at position ${position}: HTTP ${response.status}`);
    if (Date.now() > deadline) throw new Error(`the read models did not reach position ${position} within ${timeoutMs / 1000} s`);
  }
}
