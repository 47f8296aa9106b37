import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cl100k } from '../../services/query/src/search/cl100k';

/**
 * A LOCAL HTTP server (node:http on 127.0.0.1) that implements the OpenAI chat-completions API
 * contract (POST /v1/chat/completions: model, messages, a json_schema response_format; it answers
 * `choices[0].message.content` and `usage`) with one RECORDED answer. It is not a model: no model
 * can run on these machines. What it measures is what the LLM extractor sends: the calls, and the
 * prompt tokens of each (cl100k, GPT-4's tokenizer: the messages' contents and the response format's
 * JSON schema, which structured outputs bill as prompt). The recorded answer derives nothing
 * (`{"items": []}`), so completion tokens, which are the model's, are not measured.
 */
export const RECORDED_MODEL = 'recorded-answers';
const RECORDED_ANSWER = JSON.stringify({ items: [] });

export interface ChatCosts {
  calls: number;
  /** Prompt tokens of each call, in call order. */
  promptTokens: number[];
  completionTokens: number;
}

export interface RecordedChatServer {
  /** Base URL for EXTRACTION_URL (`…/v1`). */
  url: string;
  costs: ChatCosts;
  close(): Promise<void>;
}

export async function startRecordedChatServer(): Promise<RecordedChatServer> {
  const costs: ChatCosts = { calls: 0, promptTokens: [], completionTokens: 0 };
  const counter = cl100k();
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const send = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      let body: { model?: unknown; messages?: { role?: unknown; content?: unknown }[]; response_format?: { type?: unknown; json_schema?: unknown } };
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        return send(400, { error: { message: 'body is not JSON', type: 'invalid_request_error' } });
      }
      if (req.method !== 'POST' || req.url !== '/v1/chat/completions') return send(404, { error: { message: `no route ${req.method} ${req.url}` } });
      if (body.model !== RECORDED_MODEL) return send(404, { error: { message: `The model ${JSON.stringify(body.model)} does not exist` } });
      const messages = body.messages;
      if (!Array.isArray(messages) || messages.length === 0 || !messages.every((m) => typeof m.role === 'string' && typeof m.content === 'string'))
        return send(400, { error: { message: 'messages must be a non-empty list of {role, content}', type: 'invalid_request_error' } });
      if (body.response_format?.type !== 'json_schema' || typeof body.response_format.json_schema !== 'object')
        return send(400, { error: { message: "response_format must be {type: 'json_schema', json_schema}", type: 'invalid_request_error' } });
      const prompt =
        messages.reduce((sum, m) => sum + counter.count(m.content as string), 0) + counter.count(JSON.stringify(body.response_format.json_schema));
      const completion = counter.count(RECORDED_ANSWER);
      costs.calls++;
      costs.promptTokens.push(prompt);
      costs.completionTokens += completion;
      send(200, {
        id: `chatcmpl-${costs.calls}`,
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model: RECORDED_MODEL,
        choices: [{ index: 0, message: { role: 'assistant', content: RECORDED_ANSWER }, finish_reason: 'stop' }],
        usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion },
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    costs,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
