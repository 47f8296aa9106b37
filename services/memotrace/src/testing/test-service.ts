import { createTestDatabase } from '@memotrace/postgres/testing';
import { type RuntimeConfig, readConfig } from '@memotrace/runtime';
import pino, { type Logger } from 'pino';
import { type RunningService, type StartOptions, startMemoTrace } from '../app';

export interface Api {
  url: string;
  post(path: string, body: unknown, contentType?: string): Promise<{ status: number; body: any }>;
  get(path: string): Promise<{ status: number; body: any; text: string }>;
  commands(memoryId: string, commands: unknown[]): Promise<{ status: number; body: any }>;
}

export interface TestService extends Api {
  service: RunningService;
  stop(): Promise<void>;
}

/**
 * The all-in-one service on a fresh database of DATABASE_URL's server, on a free port.
 * BM25-only search unless a test passes an embeddings provider: loading the offline model
 * and embedding every test's data would cost each suite CPU it does not test.
 */
export async function startTestService(
  overrides: Partial<RuntimeConfig> = {},
  { logger = pino({ level: 'silent' }), ...options }: StartOptions & { logger?: Logger } = {},
): Promise<TestService> {
  const database = await createTestDatabase();
  const config = { ...readConfig({}), databaseUrl: database.url, port: 0, host: '127.0.0.1', ...overrides };
  const service = await startMemoTrace(config, logger, { embeddings: null, ...options });
  return {
    ...apiAt(service.url),
    service,
    async stop() {
      await service.close();
      await database.drop();
    },
  };
}

export function apiAt(url: string): Api {
  const api: Api = {
    url,
    async post(path, body, contentType = 'application/json') {
      const response = await fetch(url + path, {
        method: 'POST',
        headers: { 'content-type': contentType },
        body: typeof body === 'string' || body instanceof Uint8Array ? body : JSON.stringify(body),
      });
      const text = await response.text();
      return { status: response.status, body: text ? JSON.parse(text) : null };
    },
    async get(path) {
      const response = await fetch(url + path);
      const text = await response.text();
      let body: unknown = null;
      try {
        body = JSON.parse(text);
      } catch {
        body = null;
      }
      return { status: response.status, body, text };
    },
    commands: (memoryId, commands) => api.post(`/v1/memories/${memoryId}/commands`, { commands }),
  };
  return api;
}
