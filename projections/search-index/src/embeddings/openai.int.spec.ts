import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { openAiEmbeddingProvider } from './openai';
import { EMBEDDED_CHARS } from './port';

/** The OpenAI-compatible provider against a tiny local fake `/v1/embeddings`. */
describe('openAiEmbeddingProvider', () => {
  let server: Server;
  let url: string;
  const requests: { auth: string | undefined; body: { model: string; input: string[] } }[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      let raw = '';
      req.on('data', (chunk: Buffer) => (raw += chunk.toString()));
      req.on('end', () => {
        if (req.url !== '/v1/embeddings' || req.method !== 'POST') {
          res.writeHead(404).end('not found');
          return;
        }
        const body = JSON.parse(raw) as { model: string; input: string[] };
        requests.push({ auth: req.headers.authorization, body });
        if (body.input.includes('fail')) {
          res.writeHead(500).end('model overloaded');
          return;
        }
        // Answered in reverse order: the provider must order by `index`.
        const data = body.input.map((text, index) => ({ object: 'embedding', index, embedding: [text.length, 1, 0] })).reverse();
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', data, model: body.model }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('posts model and inputs in batches, sends the key, and returns unit vectors in input order', async () => {
    const provider = openAiEmbeddingProvider({ url, model: 'nomic-embed', apiKey: 'sk-test', batchSize: 2 });
    const vectors = await provider.embed(['a', 'bbb', 'cc']);
    expect(provider.model).toBe('openai:nomic-embed');
    expect(requests.map((r) => r.body)).toEqual([
      { model: 'nomic-embed', input: ['a', 'bbb'] },
      { model: 'nomic-embed', input: ['cc'] },
    ]);
    expect(requests.every((r) => r.auth === 'Bearer sk-test')).toBe(true);
    const expected = (n: number) => [n / Math.hypot(n, 1), 1 / Math.hypot(n, 1), 0];
    vectors.forEach((v, i) => expected([1, 3, 2][i]!).forEach((x, j) => expect(v[j]).toBeCloseTo(x, 5)));
  });

  it('sends a long text by its first EMBEDDED_CHARS characters (endpoints limit their input)', async () => {
    requests.length = 0;
    await openAiEmbeddingProvider({ url, model: 'm' }).embed(['y'.repeat(70_000), 'short']);
    expect(requests[0]!.body.input).toEqual(['y'.repeat(EMBEDDED_CHARS), 'short']);
  });

  it('accepts the full endpoint URL too, and reports a failing endpoint with its status', async () => {
    const provider = openAiEmbeddingProvider({ url: `${url}/embeddings`, model: 'm' });
    expect(await provider.embed(['x'])).toHaveLength(1);
    await expect(provider.embed(['fail'])).rejects.toThrow(/500: model overloaded/);
  });
});
