import { type MemoTraceClient, MemoTraceError, type SearchItem } from '@memotrace/client';
import type { LanguageModelMiddleware } from 'ai';

type CallOptions = Parameters<NonNullable<LanguageModelMiddleware['transformParams']>>[0]['params'];
type Prompt = CallOptions['prompt'];

export interface MemoryContextOptions {
  memoryId: string;
  /** The most tokens (cl100k, as MemoTrace counts them) the memory context may take. Default 1000. */
  tokenBudget?: number;
  /** At most this many items of each kind (facts, events, mentions, episodes). Default 10. */
  k?: number;
  /** The cut searched: what held at `validAt` (default `*`, any time), as believed at `recordedAt` (default now). */
  validAt?: string;
  recordedAt?: string;
}

/**
 * A search query is the user's message, cut to its end: a pasted document would otherwise reach MemoTrace's
 * text limit, and the question usually closes the message.
 */
const MAX_QUERY_CHARS = 8000;

/**
 * AI SDK middleware that adds what the memory knows about the user's last message to the prompt: MemoTrace
 * search with that message as the query, packed under the token budget, as one system message after the
 * prompt's own system messages. Each line names the item's kind and id (a factId can be passed to the
 * memory tools) and, for facts, when it holds. Nothing is added when the prompt has no user text or the
 * search finds nothing (a memory never written included); any other MemoTrace error fails the call.
 */
export function memoryContextMiddleware(client: MemoTraceClient, options: MemoryContextOptions): LanguageModelMiddleware {
  const memory = client.memory(options.memoryId);
  return {
    specificationVersion: 'v3',
    async transformParams({ params }) {
      const question = lastUserText(params.prompt);
      if (question === '') return params;
      let items: SearchItem[];
      let recordedAt: string;
      try {
        const answer = await memory.search({
          query: question.slice(-MAX_QUERY_CHARS),
          validAt: options.validAt ?? '*',
          ...(options.recordedAt === undefined ? {} : { recordedAt: options.recordedAt }),
          k: options.k ?? 10,
          tokenBudget: options.tokenBudget ?? 1000,
        });
        ({ items } = answer);
        ({ recordedAt } = answer.cut);
      } catch (error) {
        if (error instanceof MemoTraceError && error.code === 'UNKNOWN_MEMORY') return params;
        throw error;
      }
      if (items.length === 0) return params;
      const at = params.prompt.findIndex((message) => message.role !== 'system');
      const split = at === -1 ? params.prompt.length : at;
      const context: Prompt[number] = { role: 'system', content: renderContext(items, recordedAt) };
      return { ...params, prompt: [...params.prompt.slice(0, split), context, ...params.prompt.slice(split)] };
    },
  };
}

/** The text of the last user message (its text parts), trimmed; empty when there is none. */
export function lastUserText(prompt: Prompt): string {
  for (let i = prompt.length - 1; i >= 0; i--) {
    const message = prompt[i]!;
    if (message.role !== 'user') continue;
    return message.content
      .flatMap((part) => (part.type === 'text' ? [part.text] : []))
      .join('\n')
      .trim();
  }
  return '';
}

/** One line per item, most relevant first. */
export function renderContext(items: readonly SearchItem[], recordedAt: string): string {
  const lines = items.map((item) => {
    const holds = item.validFrom === undefined ? '' : `, holds ${item.validFrom} to ${item.validTo ?? 'now'}`;
    return `- [${item.kind} ${item.id}${holds}] ${item.text}`;
  });
  const heading = `What the memory (MemoTrace) knows that bears on the user's message, as believed at ${recordedAt}, most relevant first:`;
  return [heading, ...lines].join('\n');
}
