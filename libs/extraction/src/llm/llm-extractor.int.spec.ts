/**
 * The LLM extractor against a LOCAL HTTP server (node:http on 127.0.0.1) that implements the
 * OpenAI chat-completions API contract: it checks the request (path, Bearer key, model, messages,
 * response_format) and answers `choices[0].message.content` and `usage` as the API does. It is not
 * a model: every answer it gives was written by hand for the dialog of ./testing/dialog.ts.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { deriveEntityId, deriveFactId } from '@memotrace/domain';
import type { DroppedItem } from './answer';
import { ExtractionFailedError } from '../errors';
import { createLlmExtractor, llmExtractorFromEnv, type LlmExtractorOptions } from './llm-extractor';
import { dialog, goodAnswer, MEMORY_ID, mixedAnswer } from './testing/dialog';

const MODEL = 'recorded-answers-1';
const KEY = 'test-key';

/** What the server answers to the next valid request. */
type Reply =
  | { kind: 'answer'; content: string | null; promptTokens: number; completionTokens: number; finishReason?: string }
  | { kind: 'status'; status: number; body: string }
  | { kind: 'hang' };

interface Received {
  path: string;
  authorization: string | undefined;
  body: any;
}

let server: Server;
let baseUrl: string;
const replies: Reply[] = [];
const received: Received[] = [];

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(typeof body === 'string' ? body : JSON.stringify(body));
}

/** The contract's request checks: a failing one is the API's 4xx, which the extractor must report. */
function requestProblem(req: IncomingMessage, body: any): { status: number; message: string } | undefined {
  if (req.method !== 'POST' || req.url !== '/v1/chat/completions') return { status: 404, message: `no route ${req.method} ${req.url}` };
  if (req.headers.authorization !== `Bearer ${KEY}`) return { status: 401, message: 'Incorrect API key provided' };
  if (body?.model !== MODEL) return { status: 404, message: `The model ${JSON.stringify(body?.model)} does not exist` };
  const messages = body.messages;
  if (
    !Array.isArray(messages) ||
    messages.length === 0 ||
    !messages.every((m: any) => typeof m?.role === 'string' && typeof m?.content === 'string')
  ) {
    return { status: 400, message: 'messages must be a non-empty list of {role, content}' };
  }
  const format = body.response_format;
  if (format?.type !== 'json_schema' || typeof format.json_schema?.name !== 'string' || typeof format.json_schema?.schema !== 'object') {
    return { status: 400, message: "response_format must be {type: 'json_schema', json_schema: {name, schema}}" };
  }
  return undefined;
}

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let body: any;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        return send(res, 400, { error: { message: 'body is not JSON', type: 'invalid_request_error' } });
      }
      received.push({ path: req.url ?? '', authorization: req.headers.authorization, body });
      const problem = requestProblem(req, body);
      if (problem) return send(res, problem.status, { error: { message: problem.message, type: 'invalid_request_error' } });
      const reply = replies.shift();
      if (!reply) return send(res, 500, { error: { message: 'the test queued no reply', type: 'server_error' } });
      switch (reply.kind) {
        case 'hang':
          return; // never answers: the client's timeout has to end the call
        case 'status':
          return send(res, reply.status, reply.body);
        case 'answer':
          return send(res, 200, {
            id: `chatcmpl-${received.length}`,
            object: 'chat.completion',
            created: 1715180400,
            model: body.model,
            choices: [{ index: 0, message: { role: 'assistant', content: reply.content }, finish_reason: reply.finishReason ?? 'stop' }],
            usage: {
              prompt_tokens: reply.promptTokens,
              completion_tokens: reply.completionTokens,
              total_tokens: reply.promptTokens + reply.completionTokens,
            },
          });
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(() => {
  replies.length = 0;
  received.length = 0;
});

const answer = (content: unknown, promptTokens = 1200, completionTokens = 300): Reply => ({
  kind: 'answer',
  content: typeof content === 'string' ? content : JSON.stringify(content),
  promptTokens,
  completionTokens,
});

const extractor = (options: Partial<LlmExtractorOptions> = {}) => createLlmExtractor({ url: baseUrl, model: MODEL, apiKey: KEY, ...options });

describe('LLM extractor against a local chat-completions server', () => {
  it('sends the contract request: model, Bearer key, messages with entities, window and at, a json_schema response format', async () => {
    replies.push(answer({ items: [] }));
    await extractor().extract(dialog);
    expect(received).toHaveLength(1);
    const [{ path, authorization, body }] = received as [Received];
    expect(path).toBe('/v1/chat/completions');
    expect(authorization).toBe(`Bearer ${KEY}`);
    expect(body.model).toBe(MODEL);
    expect(body.temperature).toBe(0);
    expect(body.messages.map((m: any) => m.role)).toEqual(['system', 'user']);
    const user: string = body.messages[1].content;
    expect(user).toContain('"id":"ent_maya","name":"Maya","aliases":["May"]');
    expect(user).toContain(`"text":${JSON.stringify(dialog.window[0]!.text)}`);
    expect(user).toContain('{"id":"t1","at":"2024-05-08T15:00:00.000Z","weekday":"Wednesday","speaker":"Maya"');
    // Statements of the same shape as the rules extractor's: its canonical vocabulary, the memory's relations, no copies.
    const system: string = body.messages[0].content;
    expect(system).toContain('lives_in (one), from (one), works_at (one), works_as (one)');
    expect(system).toContain('has_child (many)');
    expect(system).toContain('does_not_eat');
    expect(system).toContain("never the turn's sentence");
    expect(user).toContain('Relations the memory knows:\n(none)');
    expect(body.response_format.type).toBe('json_schema');
    expect(body.response_format.json_schema.strict).toBe(true);
    expect(body.response_format.json_schema.schema.properties.items.items.properties.turns.items.enum).toEqual(['t1', 't2', 't3']);
  });

  it('turns a good answer into derived items with evidence turns and resolved instants', async () => {
    replies.push(answer(goodAnswer));
    const derived = await extractor().extract(dialog);
    const porto = deriveEntityId(MEMORY_ID, 'Porto');
    expect(derived.map((d) => d.command.op)).toEqual([
      'UPSERT_ENTITY',
      'UPSERT_ENTITY',
      'UPSERT_ENTITY',
      'DEFINE_RELATION',
      'DEFINE_RELATION',
      'UPSERT_EDGE',
      'UPSERT_EDGE',
      'UPSERT_EDGE',
      'UPSERT_EVENT',
    ]);
    // The canonical `one` relations the statements use are declared, the answer's own and the one it left out.
    expect(derived.slice(3, 5).map((d) => d.command)).toEqual([
      { op: 'DEFINE_RELATION', rel: 'lives_in', cardinality: 'one' },
      { op: 'DEFINE_RELATION', rel: 'works_at', cardinality: 'one' },
    ]);
    // Every statement cites its turns as evidence; the event rests on the statement it includes.
    for (const d of derived) if (d.command.op === 'UPSERT_EDGE') expect(d.command.evidence).toEqual(d.turns);
    expect(derived[8]!.command).toMatchObject({ includesFacts: [deriveFactId(MEMORY_ID, 'ent_maya', 'lives_in', porto)] });
    expect(derived[5]).toEqual({
      command: {
        op: 'UPSERT_EDGE',
        factId: deriveFactId(MEMORY_ID, 'ent_maya', 'lives_in', porto),
        src: 'ent_maya',
        rel: 'lives_in',
        dst: porto,
        validFrom: '2024-05-04T00:00:00.000Z',
        validTo: null,
        confidence: 0.9,
        evidence: ['t1'],
      },
      confidence: 0.9,
      turns: ['t1'],
      why: 'says she moved to Porto',
    });
    expect(derived[8]!.command).toMatchObject({
      op: 'UPSERT_EVENT',
      participants: [{ entityId: 'ent_maya', role: 'mover' }],
      timeSpan: { from: '2024-05-04T00:00:00.000Z', to: '2024-05-05T00:00:00.000Z' },
    });
    expect(derived[8]!.turns).toEqual(['t1']);
  });

  it('drops invalid items, keeps the valid one, reports the dropped ones and accumulates usage', async () => {
    const dropped: DroppedItem[][] = [];
    const llm = extractor({ onDropped: (d) => dropped.push(d) });
    replies.push(answer(mixedAnswer, 1000, 200), answer(goodAnswer, 1100, 400));
    const first = await llm.extract(dialog);
    expect(first.map((d) => d.command)).toEqual([expect.objectContaining({ op: 'UPSERT_EDGE', rel: 'left', evidence: ['t1'] })]);
    expect(dropped).toHaveLength(1);
    expect(dropped[0]!.map((d) => d.index)).toEqual([0, 1, 2]);
    expect(dropped[0]![0]!.reason).toMatch(/ARCHIVE_EDGE" is not derivable/);
    expect(llm.usage()).toEqual({ calls: 1, failedCalls: 0, turns: 3, promptTokens: 1000, completionTokens: 200, items: 1, droppedItems: 3 });
    await llm.extract(dialog);
    expect(llm.usage()).toEqual({ calls: 2, failedCalls: 0, turns: 6, promptTokens: 2100, completionTokens: 600, items: 10, droppedItems: 3 });
  });

  it('fails on an answer that is not JSON, and still counts its tokens', async () => {
    const llm = extractor();
    replies.push(answer('Here is what I found: Maya moved to Porto.', 900, 12));
    const failure = llm.extract(dialog);
    await expect(failure).rejects.toBeInstanceOf(ExtractionFailedError);
    await expect(failure).rejects.toThrow(/the model's answer is not JSON/);
    expect(llm.usage()).toMatchObject({ calls: 1, failedCalls: 1, promptTokens: 900, completionTokens: 12, items: 0 });
  });

  it.each([
    ['an answer without items', answer({ derived: [] }), /not \{"items": \[\.\.\.\]\}/],
    [
      'an answer cut at the token limit',
      { ...answer('{"items": [{"command": {"op": "UPS'), finishReason: 'length' } as Reply,
      /cut at the token limit/,
    ],
    ['no content', { ...answer(''), content: null } as Reply, /no content/],
    [
      'a body that is not a chat completion',
      { kind: 'status', status: 200, body: '{"object": "list", "data": []}' } as Reply,
      /without a chat completion/,
    ],
    ['a body that is not JSON', { kind: 'status', status: 200, body: '<html>gateway</html>' } as Reply, /body that is not JSON/],
  ])('fails on %s', async (_what, reply, message) => {
    replies.push(reply);
    await expect(extractor().extract(dialog)).rejects.toThrow(message);
  });

  it('fails with the status on HTTP 500', async () => {
    replies.push({ kind: 'status', status: 500, body: '{"error": {"message": "upstream overloaded", "type": "server_error"}}' });
    const error = await extractor()
      .extract(dialog)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ExtractionFailedError);
    expect(error).toMatchObject({ code: 'EXTRACTION_FAILED', status: 500 });
    expect((error as Error).message).toBe(
      `${baseUrl}/chat/completions answered HTTP 500: {"error": {"message": "upstream overloaded", "type": "server_error"}}`,
    );
    // What is kept of it quotes nothing of the body (an endpoint may echo the turns).
    expect((error as ExtractionFailedError).summary).toBe(`${baseUrl}/chat/completions answered HTTP 500`);
  });

  it('fails with 401 on a wrong key, without writing the key into the message', async () => {
    const error = await extractor({ apiKey: 'wrong-key' })
      .extract(dialog)
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'ExtractionFailedError', status: 401 });
    expect((error as Error).message).toMatch(/HTTP 401: .*Incorrect API key/);
    expect((error as Error).message).not.toContain('wrong-key');
  });

  it('fails when the endpoint does not answer within timeoutMs', async () => {
    const llm = extractor({ timeoutMs: 300 });
    replies.push({ kind: 'hang' });
    const error = await llm.extract(dialog).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ExtractionFailedError);
    expect((error as Error).message).toBe(`${baseUrl}/chat/completions did not answer within 300 ms`);
    expect(llm.usage()).toMatchObject({ calls: 1, failedCalls: 1, promptTokens: 0 });
  });

  it("gives back the caller's abort as the caller's, not as an extraction failure", async () => {
    replies.push({ kind: 'hang' });
    const controller = new AbortController();
    const pending = extractor().extract(dialog, controller.signal);
    const reason = new Error('request cancelled by the service');
    await new Promise<void>((resolve) => server.once('request', () => setImmediate(resolve)));
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
  });

  it('fails when nothing listens at the URL', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const url = `http://127.0.0.1:${port}/v1`;
    await expect(createLlmExtractor({ url, model: MODEL }).extract(dialog)).rejects.toThrow(
      `the call to ${url}/chat/completions failed: fetch failed`,
    );
  });

  it('makes no call for no turns', async () => {
    const llm = extractor();
    expect(await llm.extract({ ...dialog, turns: [] })).toEqual([]);
    expect(received).toEqual([]);
    expect(llm.usage().calls).toBe(0);
  });

  it('is configured from the environment (URL with a trailing slash, key as Bearer)', async () => {
    const llm = llmExtractorFromEnv({ EXTRACTION_URL: `${baseUrl}/`, EXTRACTION_MODEL: MODEL, EXTRACTION_API_KEY: KEY })!;
    expect(llm.version).toBe(`2.0.0+${MODEL}`);
    replies.push(answer(goodAnswer));
    expect(await llm.extract(dialog)).toHaveLength(9);
    expect(received[0]).toMatchObject({ path: '/v1/chat/completions', authorization: `Bearer ${KEY}` });
  });
});
