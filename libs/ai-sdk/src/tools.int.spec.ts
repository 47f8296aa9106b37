import { MemoTraceClient } from '@memotrace/client';
import { type TestService, startTestService } from '@memotrace/memotrace/testing';
import { generateText, stepCountIs } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { memoryTools } from './tools';

let svc: TestService;
let client: MemoTraceClient;
beforeAll(async () => {
  svc = await startTestService();
  client = new MemoTraceClient({ url: svc.url });
});
afterAll(async () => {
  await svc?.stop();
});

type CallOptions = MockLanguageModelV3['doGenerateCalls'][number];
type ToolCall = { tool: string; input: unknown };

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};

/** The JSON outputs of the tool results the model was last given (the prompt's last tool message). */
function lastToolOutputs(options: CallOptions): any[] {
  const tool = [...options.prompt].reverse().find((m) => m.role === 'tool');
  if (tool === undefined || tool.role !== 'tool') return [];
  return tool.content.flatMap((part) => (part.type === 'tool-result' && part.output.type === 'json' ? [part.output.value] : []));
}

/**
 * A model that plays a script: each step reads what the tools answered last and returns the next tool call,
 * or, once the script is done, a final text.
 */
function scriptedModel(script: ((outputs: any[]) => ToolCall)[]): MockLanguageModelV3 {
  let step = 0;
  return new MockLanguageModelV3({
    doGenerate: async (options) => {
      const next = script[step++];
      if (next === undefined)
        return { content: [{ type: 'text', text: 'done' }], finishReason: { unified: 'stop', raw: undefined }, usage, warnings: [] };
      const { tool, input } = next(lastToolOutputs(options));
      return {
        content: [{ type: 'tool-call', toolCallId: `call-${step}`, toolName: tool, input: JSON.stringify(input) }],
        finishReason: { unified: 'tool-calls', raw: undefined },
        usage,
        warnings: [],
      };
    },
  });
}

describe('memoryTools, called by a model through generateText', () => {
  it('remembers, searches with a cut, corrects and reads the history of a fact in the real memory', async () => {
    const tools = memoryTools(client, { memoryId: 'ai-tools', actor: 'assistant' });
    let factId = '';
    let rememberedAt = '';
    const model = scriptedModel([
      () => ({
        tool: 'remember',
        input: { subject: 'Alice', relation: 'works at', object: 'Acme', validFrom: '2024-05-06T00:00:00Z', source: 'chat' },
      }),
      ([remembered]) => {
        ({ factId, recordedAt: rememberedAt } = remembered);
        return { tool: 'searchMemory', input: { query: 'Where does Alice work?' } };
      },
      () => ({ tool: 'correctFact', input: { factId, validTo: '2024-05-08T00:00:00Z', reason: 'she left on Wednesday' } }),
      () => ({ tool: 'searchMemory', input: { query: 'Alice work', recordedAt: rememberedAt } }),
      () => ({ tool: 'searchMemory', input: { query: 'Alice work', validAt: '2024-05-09T00:00:00Z' } }),
      () => ({ tool: 'factHistory', input: { factId } }),
    ]);

    const result = await generateText({ model, tools, prompt: 'Alice works at Acme since Monday 6 May 2024.', stopWhen: stepCountIs(10) });
    expect(result.text).toBe('done');
    const outputs = result.steps.flatMap((s) => s.toolResults.map((r) => [r.toolName, r.output] as const));
    expect(outputs.map(([name]) => name)).toEqual(['remember', 'searchMemory', 'correctFact', 'searchMemory', 'searchMemory', 'factHistory']);
    const [remembered, found, corrected, before, afterWednesday, history] = outputs.map(([, output]) => output as any);

    expect(remembered).toMatchObject({ status: 'applied', ended: [] });
    const [fact] = (await client.memory('ai-tools').facts({ validAt: '2024-05-07T00:00:00Z' })).facts;
    expect(fact).toMatchObject({
      factId,
      rel: 'works_at',
      validFrom: '2024-05-06T00:00:00.000Z',
      validTo: '2024-05-08T00:00:00.000Z',
      source: 'chat',
    });
    expect(found.items).toContainEqual(expect.objectContaining({ kind: 'fact', id: factId, text: 'Alice works at Acme', validTo: null }));
    expect(corrected).toMatchObject({ factId, status: 'applied' });
    // What the memory believed before the correction, and what held in the world after Alice left.
    expect(before.cut.recordedAt).toBe(rememberedAt);
    expect(before.items).toContainEqual(expect.objectContaining({ id: factId, validTo: null }));
    expect(afterWednesday.items.map((i: { id: string }) => i.id)).not.toContain(factId);
    expect(history.versions.map((v: { validTo: string | null; recordedTo: string | null }) => [v.validTo, v.recordedTo === null])).toEqual([
      [null, false],
      ['2024-05-08T00:00:00.000Z', true],
    ]);
    const audit = await client.memory('ai-tools').audit(factId);
    expect(audit.events.map((e) => [e.type, e.actor, e.reason])).toEqual([
      ['FactAsserted', 'assistant', null],
      ['FactRetroCorrected', 'assistant', 'she left on Wednesday'],
    ]);
  });

  it('checks a draft answer against the memory before it is given', async () => {
    const tools = memoryTools(client, { memoryId: 'ai-check', actor: 'assistant' });
    const model = scriptedModel([
      () => ({ tool: 'remember', input: { subject: 'Bea', relation: 'lives in', object: 'Porto', validFrom: '2024-01-01T00:00:00Z' } }),
      () => ({ tool: 'checkClaims', input: { text: 'Bea lives in Porto.', validAt: '2024-03-01T00:00:00Z' } }),
      () => ({ tool: 'checkClaims', input: { text: 'I live in Porto.', speaker: 'Bea', validAt: '2023-12-01T00:00:00Z' } }),
    ]);
    const result = await generateText({ model, tools, prompt: 'Bea lives in Porto since January.', stopWhen: stepCountIs(5) });
    const checks = result.steps.flatMap((s) => s.toolResults.filter((r) => r.toolName === 'checkClaims').map((r) => r.output as any));
    expect(checks.map((c) => c.verdicts.map((v: any) => [v.claim.rel, v.verdict]))).toEqual([
      [['lives_in', 'supported']],
      [['lives_in', 'not_yet_valid']],
    ]);
    expect(checks[0].verdicts[0].facts[0]).toMatchObject({ rel: 'lives_in', validFrom: '2024-01-01T00:00:00.000Z', validTo: null });
  });

  it('stores values as literals, ends the previous object of a one-object relation, retracts, and hands errors to the model', async () => {
    await client.memory('ai-tools-2').commands([{ op: 'DEFINE_RELATION', rel: 'lives_in', cardinality: 'one' }]);
    const tools = memoryTools(client, { memoryId: 'ai-tools-2' });
    let factId = '';
    let parisId = '';
    const model = scriptedModel([
      () => ({ tool: 'remember', input: { subject: 'Carol', relation: 'lives in', object: 'Paris', validFrom: '2020-01-01T00:00:00Z' } }),
      ([paris]) => {
        parisId = paris.factId;
        return { tool: 'remember', input: { subject: 'Carol', relation: 'lives in', object: 'Rome', validFrom: '2023-01-01T00:00:00Z' } };
      },
      ([rome]) => {
        expect(rome.ended).toEqual([parisId]);
        return { tool: 'remember', input: { subject: 'Bob', relation: 'Birthday', object: '12 March', objectIsValue: true } };
      },
      ([remembered]) => {
        factId = remembered.factId;
        return { tool: 'correctFact', input: { factId, retract: true, reason: 'wrong person' } };
      },
      () => ({ tool: 'correctFact', input: { factId, validTo: '2030-01-01T00:00:00Z' } }),
      () => ({ tool: 'correctFact', input: { factId: 'no-such-fact', retract: true } }),
    ]);
    const result = await generateText({ model, tools, prompt: "Bob's birthday is 12 March.", stopWhen: stepCountIs(10) });
    const errors = result.steps.flatMap((s) => s.content.filter((c) => c.type === 'tool-error'));
    expect(errors.map((e) => (e.error as { code?: string }).code)).toEqual(['FACT_NOT_OPEN', 'UNKNOWN_FACT']);
    const { versions } = await client.memory('ai-tools-2').history(factId);
    expect(versions).toHaveLength(1);
    expect(versions[0]).toMatchObject({ rel: 'birthday', dst: { literal: '12 March', datatype: 'string' } });
    expect(versions[0]!.recordedTo).not.toBeNull();
    const believed = (await client.memory('ai-tools-2').facts({ validAt: '*' })).facts;
    expect(believed.map((f) => [f.rel, f.validTo])).toEqual(
      expect.arrayContaining([
        ['lives_in', '2023-01-01T00:00:00.000Z'],
        ['lives_in', null],
      ]),
    );
    expect(believed.map((f) => f.rel)).not.toContain('birthday');
  });
});
