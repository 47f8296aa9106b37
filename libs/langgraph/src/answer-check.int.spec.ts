import { Annotation, END, START, StateGraph } from '@langchain/langgraph';
import type { AnswerCheck } from './answer-check';
import { MemoTraceClient } from '@memotrace/client';
import { type TestService, startTestService } from '@memotrace/memotrace/testing';
import { answerCheckNode } from './answer-check';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(async () => {
  await svc?.stop();
});

/** A graph whose answer goes out only once the memory supports it: the check node sends a draft back for revision. */
const State = Annotation.Root({
  drafts: Annotation<string[]>,
  tries: Annotation<number>,
  answerCheck: Annotation<AnswerCheck | null>,
});

describe('answerCheckNode in a LangGraph graph', () => {
  it('checks each draft against the memory and lets an edge send an unsupported one back', async () => {
    const client = new MemoTraceClient({ url: svc.url });
    await client.memory('lg-check').commands([
      { op: 'UPSERT_ENTITY', entityId: 'alice', name: 'Alice', recordedAt: '2024-05-06T09:00:00Z' },
      { op: 'UPSERT_ENTITY', entityId: 'acme', name: 'Acme', recordedAt: '2024-05-06T09:00:00Z' },
      { op: 'UPSERT_ENTITY', entityId: 'beta', name: 'Beta', recordedAt: '2024-05-06T09:00:00Z' },
      { op: 'DEFINE_RELATION', rel: 'works_at', cardinality: 'one', recordedAt: '2024-05-06T09:00:00Z' },
      { op: 'UPSERT_EDGE', src: 'alice', rel: 'works_at', dst: 'beta', validFrom: '2024-05-06T00:00:00Z', recordedAt: '2024-05-06T09:00:00Z' },
    ]);
    const graph = new StateGraph(State)
      .addNode('draft', (state: typeof State.State) => ({ tries: state.tries + 1 }))
      .addNode('check', answerCheckNode(client, { memoryId: 'lg-check', draft: (s: typeof State.State) => s.drafts[s.tries - 1]! }))
      .addEdge(START, 'draft')
      .addEdge('draft', 'check')
      .addConditionalEdges('check', (state: typeof State.State) => (state.answerCheck!.unsupported.length > 0 ? 'draft' : END))
      .compile();
    const done = await graph.invoke({ drafts: ['Alice works at Acme.', 'Alice works at Beta.'], tries: 0, answerCheck: null });
    expect(done.tries).toBe(2);
    expect(done.answerCheck!.verdicts.map((v) => [v.claim.dst, v.verdict])).toEqual([['beta', 'supported']]);
    expect(done.answerCheck!.unsupported).toEqual([]);
  });
});
