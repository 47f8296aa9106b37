import { z } from 'zod';
import type { Derived, ExtractionInput, Extractor } from '../port';
import { readAnswer, type DroppedItem } from './answer';
import { ExtractionFailedError } from '../errors';
import { buildMessages } from './prompt';
import { responseFormat } from './schema';
import { versionWith } from '../version';

/**
 * The LLM extractor (SPEC §5.1): one call per extraction to an OpenAI-compatible chat-completions
 * endpoint, with structured output, and the answer read by `./answer.ts`. It keeps count of
 * calls and tokens, so a benchmark can report what extraction costs per turn.
 */

export const LLM_EXTRACTOR_NAME = 'llm';
/** The prompt's and the reading's version: a change to either is a new extractor. */
export const LLM_EXTRACTOR_BASE_VERSION = '2.0.0';
export const DEFAULT_TIMEOUT_MS = 60_000;

export interface LlmExtractorOptions {
  /** Base URL of the API, e.g. `http://127.0.0.1:8000/v1`: calls go to `{url}/chat/completions`. */
  url: string;
  model: string;
  /** Sent as `Authorization: Bearer <apiKey>` when given. */
  apiKey?: string;
  /** Per call, reading the answer included. */
  timeoutMs?: number;
  /** `max_tokens` of the request; the endpoint's default when absent. */
  maxTokens?: number;
  fetch?: typeof globalThis.fetch;
  /** Told of the items dropped from an answer (see `./answer.ts`), e.g. to log them. */
  onDropped?: (dropped: DroppedItem[], input: ExtractionInput) => void;
}

/** Totals since the extractor was created. */
export interface LlmUsage {
  /** Calls made, failed ones included. */
  calls: number;
  failedCalls: number;
  /** Turns sent to derive from (the window not counted), over all calls. */
  turns: number;
  promptTokens: number;
  completionTokens: number;
  /** Items kept and items dropped from the answers. */
  items: number;
  droppedItems: number;
}

export interface LlmExtractor extends Extractor {
  readonly model: string;
  usage(): LlmUsage;
}

/** `2.0.0+<model>`: another model is another extractor (see `versionWith`). */
export function llmExtractorVersion(model: string): string {
  return versionWith(LLM_EXTRACTOR_NAME, LLM_EXTRACTOR_BASE_VERSION, model);
}

const completionSchema = z
  .object({
    choices: z
      .array(
        z
          .object({
            message: z.object({ content: z.string().nullable().optional(), refusal: z.string().nullable().optional() }).loose(),
            finish_reason: z.string().nullable().optional(),
          })
          .loose(),
      )
      .min(1),
    usage: z.object({ prompt_tokens: z.number().optional(), completion_tokens: z.number().optional() }).loose().nullable().optional(),
  })
  .loose();

export function createLlmExtractor(options: LlmExtractorOptions): LlmExtractor {
  const { model, apiKey, maxTokens, onDropped } = options;
  if (!model) throw new Error('the LLM extractor needs a model (EXTRACTION_MODEL)');
  let base: URL;
  try {
    base = new URL(options.url);
  } catch {
    throw new Error(`the LLM extractor's URL is not a URL: ${JSON.stringify(options.url)}`);
  }
  const endpoint = `${base.href.replace(/\/+$/, '')}/chat/completions`;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const fetchImpl = options.fetch ?? globalThis.fetch;
  const totals: LlmUsage = { calls: 0, failedCalls: 0, turns: 0, promptTokens: 0, completionTokens: 0, items: 0, droppedItems: 0 };

  async function call(input: ExtractionInput, signal: AbortSignal | undefined): Promise<string> {
    const timeout = AbortSignal.timeout(timeoutMs);
    const body = {
      model,
      messages: buildMessages(input),
      response_format: responseFormat(input.turns.map((t) => t.mentionId)),
      temperature: 0,
      ...(maxTokens !== undefined ? { max_tokens: maxTokens } : {}),
    };
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
    if (apiKey) headers['authorization'] = `Bearer ${apiKey}`;
    let status: number;
    let text: string;
    try {
      const response = await fetchImpl(endpoint, {
        method: 'POST',
        headers,
        body: JSON.stringify(body),
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      });
      status = response.status;
      text = await response.text();
      if (!response.ok)
        throw new ExtractionFailedError(`${endpoint} answered HTTP ${status}: ${text.slice(0, 300)}`, status, {
          summary: `${endpoint} answered HTTP ${status}`,
        });
    } catch (error) {
      if (error instanceof ExtractionFailedError) throw error;
      // The caller's own abort is not the endpoint's failure: it goes back as the caller's reason.
      if (signal?.aborted && !timeout.aborted) throw signal.reason;
      if (timeout.aborted) throw new ExtractionFailedError(`${endpoint} did not answer within ${timeoutMs} ms`, undefined, { cause: error });
      throw new ExtractionFailedError(`the call to ${endpoint} failed: ${(error as Error).message}`, undefined, {
        cause: error,
        summary: `the call to ${endpoint} failed`,
      });
    }

    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new ExtractionFailedError(
        `${endpoint} answered HTTP ${status} with a body that is not JSON: ${JSON.stringify(text.slice(0, 120))}`,
        status,
        { summary: `${endpoint} answered HTTP ${status} with a body that is not JSON` },
      );
    }
    const completion = completionSchema.safeParse(json);
    if (!completion.success) throw new ExtractionFailedError(`${endpoint} answered without a chat completion (choices[0].message)`, status);
    // Tokens spent count even when the answer turns out to be unusable.
    totals.promptTokens += completion.data.usage?.prompt_tokens ?? 0;
    totals.completionTokens += completion.data.usage?.completion_tokens ?? 0;
    const choice = completion.data.choices[0]!;
    if (choice.message.refusal)
      throw new ExtractionFailedError(`the model refused: ${choice.message.refusal.slice(0, 200)}`, status, { summary: 'the model refused' });
    if (choice.finish_reason === 'length')
      throw new ExtractionFailedError('the model\'s answer was cut at the token limit (finish_reason "length")', status);
    if (typeof choice.message.content !== 'string')
      throw new ExtractionFailedError('the model answered no content (choices[0].message.content)', status);
    return choice.message.content;
  }

  return {
    name: LLM_EXTRACTOR_NAME,
    version: llmExtractorVersion(model),
    model,
    usage: () => ({ ...totals }),
    async extract(input: ExtractionInput, signal?: AbortSignal): Promise<Derived[]> {
      if (input.turns.length === 0) return [];
      totals.calls++;
      totals.turns += input.turns.length;
      try {
        const { derived, dropped } = readAnswer(await call(input, signal), input);
        totals.items += derived.length;
        totals.droppedItems += dropped.length;
        if (dropped.length > 0) onDropped?.(dropped, input);
        return derived;
      } catch (error) {
        totals.failedCalls++;
        throw error;
      }
    },
  };
}

/**
 * The LLM extractor the environment configures: `EXTRACTION_URL` (base URL of an OpenAI-compatible
 * API), `EXTRACTION_MODEL` (required with it) and `EXTRACTION_API_KEY` (optional); undefined when
 * `EXTRACTION_URL` is not set. (The service's EXTRACTION_TIMEOUT_MS bounds a call through the signal.)
 */
export function llmExtractorFromEnv(env: Record<string, string | undefined> = process.env): LlmExtractor | undefined {
  const url = env['EXTRACTION_URL']?.trim();
  if (!url) return undefined;
  const model = env['EXTRACTION_MODEL']?.trim();
  if (!model) throw new Error('EXTRACTION_URL is set but EXTRACTION_MODEL is not: the LLM extractor needs both');
  const apiKey = env['EXTRACTION_API_KEY']?.trim();
  return createLlmExtractor({ url, model, ...(apiKey ? { apiKey } : {}) });
}
