import pino from 'pino';
import { createHttpServer } from './server';
import type { StorageFault } from './database-unavailable';

/** A classifier as a service passes its database's: by the error's code, as PostgreSQL and sockets give it. */
const storageFault = (error: unknown): StorageFault | null => {
  const code = (error as { code?: string }).code;
  return code === '53100' ? 'full' : code === 'ECONNREFUSED' ? 'unavailable' : code === 'SEARCH_AWAY' ? 'search-unavailable' : null;
};
const failing = (code: string) => Object.assign(new Error(`failed with ${code}`), { code });

describe('a request whose database is away or full', () => {
  const { app } = createHttpServer({
    storageFault,
    readiness: [{ name: 'database', check: () => Promise.reject(failing('ECONNREFUSED')) }],
  });
  app.post('/v1/away', async () => Promise.reject(failing('ECONNREFUSED')));
  app.post('/v1/full', async () => Promise.reject(failing('53100')));
  app.post('/v1/broken', async () => Promise.reject(failing('XX000')));
  afterAll(() => app.close());

  it('answers 503 DATABASE_UNAVAILABLE with a Retry-After, not 500', async () => {
    const response = await app.inject({ method: 'POST', url: '/v1/away' });
    expect(response.statusCode).toBe(503);
    expect(response.headers['retry-after']).toBe('2');
    expect(response.json()).toMatchObject({ error: { code: 'DATABASE_UNAVAILABLE' } });
  });

  it('answers 507 STORAGE_FULL on a full disk', async () => {
    const response = await app.inject({ method: 'POST', url: '/v1/full' });
    expect(response.statusCode).toBe(507);
    expect(response.headers['retry-after']).toBe('30');
    expect(response.json()).toMatchObject({ error: { code: 'STORAGE_FULL' } });
  });

  it('keeps 500 INTERNAL for any other failure', async () => {
    const response = await app.inject({ method: 'POST', url: '/v1/broken' });
    expect(response.statusCode).toBe(500);
    expect(response.json()).toMatchObject({ error: { code: 'INTERNAL' } });
  });

  it('says why it is not ready', async () => {
    const response = await app.inject({ method: 'GET', url: '/readyz' });
    expect(response.statusCode).toBe(503);
    expect(response.json()).toEqual({ status: 'not ready', failures: ['database: DATABASE_UNAVAILABLE (failed with ECONNREFUSED)'] });
  });
});

describe('a search whose index is away', () => {
  const said: string[] = [];
  const logger = pino({ level: 'warn' }, { write: (line: string) => void said.push((JSON.parse(line) as { msg: string }).msg) });
  let searchAway = true;
  const { app } = createHttpServer({ storageFault, logger });
  app.post('/v1/search', async () => (searchAway ? Promise.reject(failing('SEARCH_AWAY')) : { items: [] }));
  app.post('/v1/write', async () => ({ ok: true }));
  afterAll(() => app.close());

  it('answers 503 SEARCH_UNAVAILABLE, says it once, and says it is back when search answers again', async () => {
    for (let i = 0; i < 3; i++) {
      const response = await app.inject({ method: 'POST', url: '/v1/search' });
      expect(response.statusCode).toBe(503);
      expect(response.headers['retry-after']).toBe('5');
      expect(response.json()).toMatchObject({ error: { code: 'SEARCH_UNAVAILABLE' } });
      // A write answered meanwhile does not say the index is back: it does not use it.
      expect((await app.inject({ method: 'POST', url: '/v1/write' })).statusCode).toBe(200);
    }
    searchAway = false;
    expect((await app.inject({ method: 'POST', url: '/v1/search' })).statusCode).toBe(200);
    expect((await app.inject({ method: 'POST', url: '/v1/search' })).statusCode).toBe(200);
    expect(said).toEqual(['search index unavailable (SEARCH_UNAVAILABLE): answering 503 until it is back', 'search index available again']);
  });
});
