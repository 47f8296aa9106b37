import { buildOpenApiDocument } from '@memotrace/contracts';
import { hashApiKey, parseApiKeys } from '@memotrace/http-kit';
import { type TestService, startTestService } from './testing/test-service';

/**
 * SPEC §5.0: `GET /docs` is the OpenAPI document as JSON to a client that asks for JSON and a
 * browsable page to a browser; the page's assets come from this server (no CDN), and the docs
 * stay public when API keys are configured.
 */
const keys = parseApiKeys(JSON.stringify([{ id: 'agent', hash: hashApiKey('mt_docs-key'), memories: ['*'], access: 'write' }]));
const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({ apiKeys: keys });
});
afterAll(async () => {
  await svc?.stop();
});

/**
 * A GET whose body is always read: an unread body keeps its keep-alive connection busy, and the
 * service's stop then waits for it (a large script asset can hold it past the hook's timeout).
 */
const get = async (path: string, accept?: string) => {
  const response = await fetch(svc.url + path, { headers: accept === undefined ? {} : { accept } });
  const body = await response.text();
  return { status: response.status, headers: response.headers, text: async () => body, json: async () => JSON.parse(body) as unknown };
};

/** Every `src` / `href` of the page's script, link and img tags. */
const assetUrls = (html: string) => [...html.matchAll(/<(?:script|link|img)\b[^>]*?\b(?:src|href)="([^"]+)"/gi)].map((m) => m[1]!);

describe('GET /docs', () => {
  it('serves a browser an HTML page whose assets are all same-origin', async () => {
    for (const accept of ['text/html', BROWSER_ACCEPT]) {
      const response = await get('/docs', accept);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^text\/html/);
      expect(response.headers.get('vary')).toMatch(/accept/i);
      const html = await response.text();
      const assets = assetUrls(html);
      expect(assets.filter((u) => u.endsWith('.js')).length).toBeGreaterThan(0);
      expect(assets.filter((u) => u.endsWith('.css')).length).toBeGreaterThan(0);
      for (const url of assets) expect(url).not.toMatch(/^(?:[a-z]+:)?\/\//i); // no https://, no protocol-relative //cdn
      expect(html).not.toMatch(/<(?:script|link)\b[^>]*https?:\/\//i);
    }
  });

  it("serves the page's scripts and styles from this server, without a key", async () => {
    const html = await (await get('/docs', 'text/html')).text();
    for (const asset of assetUrls(html)) {
      const response = await get(new URL(asset, `${svc.url}/docs`).pathname);
      expect({ asset, status: response.status }).toEqual({ asset, status: 200 });
      if (asset.endsWith('.js')) expect(response.headers.get('content-type')).toMatch(/javascript/);
      if (asset.endsWith('.css')) expect(response.headers.get('content-type')).toMatch(/^text\/css/);
    }
    // The initializer loads the document from /docs/json and leaves the validator badge (an outside URL) off.
    const initializer = await (await get('/docs/static/swagger-initializer.js')).text();
    expect(initializer).toContain("resolveUrl('./json')");
    expect(initializer).toMatch(/validatorUrl: null/);
  });

  it('serves the OpenAPI document, indented, to a client that asks for JSON or does not say', async () => {
    for (const [path, accept] of [
      ['/docs', 'application/json'],
      ['/docs', undefined],
      ['/docs', '*/*'],
      ['/docs/openapi.json', 'text/html'],
      ['/docs/json', undefined],
    ] as const) {
      const response = await get(path, accept);
      expect({ path, accept, status: response.status }).toEqual({ path, accept, status: 200 });
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      const text = await response.text();
      expect(text.startsWith('{\n  "openapi": "3.1.0"')).toBe(true);
      const doc = JSON.parse(text);
      expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/v1/memories/{memoryId}/commands', '/v1/memories/{memoryId}/facts', '/docs']));
    }
  });

  it('serves the described document: servers, tags, and every operation with its examples', async () => {
    const doc = (await (await get('/docs', 'application/json')).json()) as any;
    expect(doc).toEqual(JSON.parse(JSON.stringify(buildOpenApiDocument())));
    expect(doc.servers).toEqual([expect.objectContaining({ url: '/' })]);
    expect(doc.paths['/mcp'].post.requestBody.content['application/json'].example).toMatchObject({ jsonrpc: '2.0' });
    // The relative server resolves against the page's address to this very service.
    const base = new URL(doc.servers[0].url, `${svc.url}/docs`);
    const health = await fetch(new URL('healthz', base));
    expect([health.status, await health.text()]).toEqual([200, '{"status":"ok"}']);
  });

  it('keeps /v1 behind the keys while the docs are open', async () => {
    expect((await get('/v1/memories/m/facts')).status).toBe(401);
    expect((await get('/docs', 'text/html')).status).toBe(200);
  });
});
