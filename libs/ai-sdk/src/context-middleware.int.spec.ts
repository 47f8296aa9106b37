import { MemoTraceClient } from '@memotrace/client';
import { type TestService, startTestService } from '@memotrace/memotrace/testing';
import { generateText, wrapLanguageModel } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { type MemoryContextOptions, memoryContextMiddleware } from './context-middleware';

let svc: TestService;
let client: MemoTraceClient;
beforeAll(async () => {
  svc = await startTestService();
  client = new MemoTraceClient({ url: svc.url });
  const at = '2024-05-06T09:00:00Z';
  const { position } = await client.memory('ai-context').commands([
    { op: 'UPSERT_ENTITY', entityId: 'alice', name: 'Alice', recordedAt: at },
    { op: 'UPSERT_ENTITY', entityId: 'acme', name: 'Acme', recordedAt: at },
    { op: 'UPSERT_EDGE', factId: 'alice-acme', src: 'alice', rel: 'works_at', dst: 'acme', validFrom: '2024-05-06T00:00:00Z', recordedAt: at },
    {
      op: 'RECORD_MENTION',
      mentionId: 't1',
      docId: 'chat-1',
      speaker: 'Alice',
      text: 'I started at Acme today, in the Lisbon office',
      recordedAt: at,
    },
    { op: 'UPSERT_ENTITY', entityId: 'bob', name: 'Bob', recordedAt: at },
    { op: 'RECORD_MENTION', mentionId: 't2', docId: 'chat-2', speaker: 'Bob', text: 'Bob collects old maps', recordedAt: at },
  ]);
  await client.memory('ai-context').facts({ minPosition: position }); // the middleware searches what the read models hold
});
afterAll(async () => {
  await svc?.stop();
});

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};

/** A mock model behind the middleware, and what it was given. */
async function ask(options: MemoryContextOptions, prompt: string) {
  const model = new MockLanguageModelV3({
    doGenerate: { content: [{ type: 'text', text: 'ok' }], finishReason: { unified: 'stop', raw: undefined }, usage, warnings: [] },
  });
  await generateText({
    model: wrapLanguageModel({ model, middleware: memoryContextMiddleware(client, options) }),
    system: 'You are a helpful assistant.',
    prompt,
  });
  return model.doGenerateCalls[0]!.prompt;
}

describe('memoryContextMiddleware', () => {
  it("adds the memory's items for the user's message as a system message after the prompt's own, as search packs them", async () => {
    const prompt = await ask({ memoryId: 'ai-context' }, 'Where does Alice work?');
    expect(prompt.map((m) => m.role)).toEqual(['system', 'system', 'user']);
    expect(prompt[0]!.content).toBe('You are a helpful assistant.');
    const context = prompt[1]!.content as string;
    expect(context).toContain('[fact alice-acme, holds 2024-05-06T00:00:00.000Z to now] Alice works at Acme');
    expect(context).toContain('[mention t1] Alice: I started at Acme today, in the Lisbon office');
    expect(context).not.toContain('maps');
    const { items } = await client.memory('ai-context').search({ query: 'Where does Alice work?', validAt: '*', k: 10, tokenBudget: 1000 });
    expect(context.split('\n').slice(1)).toEqual(items.map((i) => expect.stringContaining(i.text)));
  });

  it('keeps the context within the token budget', async () => {
    const budget = 12;
    const { items, tokens } = await client.memory('ai-context').search({ query: 'Alice Acme Lisbon', validAt: '*', tokenBudget: budget });
    expect(tokens).toBeLessThanOrEqual(budget);
    expect(items.length).toBeGreaterThan(0);
    const prompt = await ask({ memoryId: 'ai-context', tokenBudget: budget }, 'Alice Acme Lisbon');
    expect((prompt[1]!.content as string).split('\n').slice(1)).toEqual(items.map((i) => expect.stringContaining(i.text)));
    expect(prompt[1]!.content).toContain('Alice works at Acme');
    expect(prompt[1]!.content).not.toContain('Lisbon'); // the turn does not fit beside the fact
    expect((await ask({ memoryId: 'ai-context', tokenBudget: 4 }, 'Alice Acme Lisbon')).map((m) => m.role)).toEqual(['system', 'user']);
  });

  it('searches the cut it is given, and adds nothing when the memory knows nothing', async () => {
    const before = await ask({ memoryId: 'ai-context', recordedAt: '2024-05-06T08:00:00Z' }, 'Where does Alice work?');
    expect(before.map((m) => m.role)).toEqual(['system', 'user']);
    const past = await ask({ memoryId: 'ai-context', validAt: '2024-05-01T00:00:00Z' }, 'Where does Alice work?');
    expect(past.map((m) => m.role)).toEqual(['system', 'system', 'user']);
    expect(past[1]!.content).toContain('[mention t1]');
    expect(past[1]!.content).not.toContain('alice-acme'); // the fact holds from 6 May on
    expect((await ask({ memoryId: 'never-written' }, 'Where does Alice work?')).map((m) => m.role)).toEqual(['system', 'user']);
    expect((await ask({ memoryId: 'ai-context' }, 'submarine')).map((m) => m.role)).toEqual(['system', 'user']);
  });
});
