import { Annotation, END, type LangGraphRunnableConfig, START, StateGraph } from '@langchain/langgraph';
import { MemoTraceClient } from '@memotrace/client';
import { type TestService, startTestService } from '@memotrace/memotrace/testing';
import { MemoTraceStore } from './store';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(async () => {
  await svc?.stop();
});

/**
 * A LangGraph graph compiled with the store: its nodes reach it as `config.store` (LangGraph wraps it in its
 * own batching store), remember what the user said, and recall it by key and by search, across invocations.
 */
const State = Annotation.Root({
  userId: Annotation<string>,
  said: Annotation<string>,
  question: Annotation<string>,
  before: Annotation<string | null>,
  recalled: Annotation<string[]>,
});

function graphWith(store: MemoTraceStore) {
  const storeOf = (config: LangGraphRunnableConfig) => {
    if (config.store === undefined) throw new Error('the graph was compiled without a store');
    return config.store;
  };
  return new StateGraph(State)
    .addNode('remember', async (state: typeof State.State, config: LangGraphRunnableConfig) => {
      const namespace = ['users', state.userId, 'memories'];
      const before = await storeOf(config).get(namespace, 'favourite-food');
      await storeOf(config).put(namespace, 'favourite-food', { text: state.said });
      return { before: (before?.value['text'] as string | undefined) ?? null };
    })
    .addNode('recall', async (state: typeof State.State, config: LangGraphRunnableConfig) => {
      const found = await storeOf(config).search(['users', state.userId], { query: state.question });
      return { recalled: found.map((item) => item.value['text'] as string) };
    })
    .addEdge(START, 'remember')
    .addEdge('remember', 'recall')
    .addEdge('recall', END)
    .compile({ store });
}

describe('MemoTraceStore in a LangGraph graph', () => {
  it('keeps what the nodes put across invocations, as versions with history and audit', async () => {
    const store = new MemoTraceStore(new MemoTraceClient({ url: svc.url }), {
      memoryId: 'lg-graph',
      index: { fields: ['text'] },
      actor: 'food-agent',
    });
    const graph = graphWith(store);

    const first = await graph.invoke({ userId: 'ada', said: 'my favourite food is ramen', question: 'favourite food' });
    expect(first.before).toBeNull();
    expect(first.recalled).toEqual(['my favourite food is ramen']);

    const second = await graph.invoke({ userId: 'ada', said: 'my favourite food is now sushi', question: 'favourite food' });
    expect(second.before).toBe('my favourite food is ramen');
    expect(second.recalled).toEqual(['my favourite food is now sushi']);

    const other = await graph.invoke({ userId: 'bob', said: 'I love pasta as food', question: 'food' });
    expect(other.recalled).toEqual(['I love pasta as food']); // bob's namespace only

    const namespace = ['users', 'ada', 'memories'];
    const history = await store.history(namespace, 'favourite-food');
    expect(history.map((v) => v.value)).toEqual([{ text: 'my favourite food is ramen' }, { text: 'my favourite food is now sushi' }]);
    const audit = await store.audit(namespace, 'favourite-food');
    expect(audit.events.map((e) => [e.type, e.actor])).toEqual([
      ['FactAsserted', 'food-agent'],
      ['FactAsserted', 'food-agent'],
    ]);
    // As the memory held it after the first invocation.
    const then = store.asOf(history[0]!.recordedFrom);
    expect((await then.get(namespace, 'favourite-food'))!.value).toEqual({ text: 'my favourite food is ramen' });
    expect(await then.listNamespaces()).toEqual([namespace]);
    expect(await store.listNamespaces({ maxDepth: 2 })).toEqual([
      ['users', 'ada'],
      ['users', 'bob'],
    ]);
  });
});
