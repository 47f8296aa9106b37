import { createHttpServer } from './server';
import type { StorageFault } from './database-unavailable';

/** A classifier as a service passes its database's: by the error's code, as PostgreSQL and sockets give it. */
const storageFault = (error: unknown): StorageFault | null => {
  const code = (error as { code?: string }).code;
  return code === '53100' ? 'full' : code === 'ECONNREFUSED' ? 'unavailable' : null;
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
