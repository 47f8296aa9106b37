/**
 * The console's one way to the data: the public HTTP API (`/v1/...`) of the origin that served the
 * page, with the pasted key as `Authorization: Bearer`. Errors keep the API's envelope
 * (`{"error": {"code", "message"}}`) and say what to do about a refused key.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export interface Request {
  method?: 'GET' | 'POST';
  /** A list is the parameter once per value (`src=a&src=b`). */
  query?: Record<string, string | number | readonly string[] | undefined>;
  body?: unknown;
}

/** What a refusal means to the person at the console, after the API's own words. */
function explain(status: number, code: string, message: string): string {
  if (status === 401) return `The API key was refused (${message}). Paste a valid key in "API key" above.`;
  if (status === 403) return `This key may not do that (${message}).`;
  if (status === 0) return `The service did not answer (${message}).`;
  return `${code}: ${message}`;
}

export async function callApi<T>(path: string, key: string | null, request: Request = {}): Promise<T> {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(request.query ?? {})) {
    if (typeof value === 'object') for (const one of value) params.append(name, one);
    else if (value !== undefined && value !== '') params.set(name, String(value));
  }
  const qs = params.toString();
  const url = qs === '' ? path : `${path}?${qs}`;
  const headers: Record<string, string> = { accept: 'application/json' };
  if (key) headers['authorization'] = `Bearer ${key}`;
  if (request.body !== undefined) headers['content-type'] = 'application/json';
  let response: Response;
  try {
    response = await fetch(url, {
      method: request.method ?? (request.body === undefined ? 'GET' : 'POST'),
      headers,
      body: request.body === undefined ? null : JSON.stringify(request.body),
    });
  } catch (error) {
    throw new ApiError(0, 'NETWORK', explain(0, 'NETWORK', (error as Error).message));
  }
  const text = await response.text();
  let json: unknown = null;
  try {
    json = text === '' ? null : JSON.parse(text);
  } catch {
    json = null;
  }
  if (!response.ok) {
    const envelope = (json as { error?: { code?: string; message?: string } } | null)?.error;
    const code = envelope?.code ?? `HTTP_${response.status}`;
    const message = envelope?.message ?? (text.slice(0, 200) || response.statusText);
    throw new ApiError(response.status, code, explain(response.status, code, message));
  }
  return json as T;
}

/** `/v1/memories/{memoryId}` with the id encoded: ids may hold any character but control characters. */
export function memoryPath(memoryId: string, rest = ''): string {
  return `/v1/memories/${encodeURIComponent(memoryId)}${rest}`;
}
