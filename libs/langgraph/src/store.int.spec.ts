import { MemoTraceClient } from '@memotrace/client';
import { type TestService, startTestService } from '@memotrace/memotrace/testing';
import { itemFactId } from './item-facts';
import { MemoTraceStore } from './store';

let svc: TestService;
let client: MemoTraceClient;
beforeAll(async () => {
  svc = await startTestService();
  client = new MemoTraceClient({ url: svc.url });
});
afterAll(async () => {
  await svc?.stop();
});

const store = (memoryId: string, options: Partial<ConstructorParameters<typeof MemoTraceStore>[1]> = {}) =>
  new MemoTraceStore(client, { memoryId, ...options });

describe('MemoTraceStore: items as versioned facts', () => {
  it('puts and gets; an update is a new version of the same fact, createdAt kept; the same value again changes nothing', async () => {
    const s = store('lg-put');
    expect(await s.get(['users', 'u1'], 'prefs')).toBeNull(); // a memory never written reads as empty
    await s.put(['users', 'u1'], 'prefs', { food: 'pizza' });
    const first = (await s.get(['users', 'u1'], 'prefs'))!;
    expect(first).toMatchObject({ namespace: ['users', 'u1'], key: 'prefs', value: { food: 'pizza' } });
    expect(first.createdAt.getTime()).toBe(first.updatedAt.getTime());

    await s.put(['users', 'u1'], 'prefs', { food: 'sushi' });
    const second = (await s.get(['users', 'u1'], 'prefs'))!;
    expect(second.value).toEqual({ food: 'sushi' });
    expect(second.createdAt).toEqual(first.createdAt);
    expect(second.updatedAt.getTime()).toBeGreaterThanOrEqual(first.updatedAt.getTime());

    await s.put(['users', 'u1'], 'prefs', { food: 'sushi' });
    expect((await s.get(['users', 'u1'], 'prefs'))!.updatedAt).toEqual(second.updatedAt);

    const history = await s.history(['users', 'u1'], 'prefs');
    expect(history.map((v) => v.value)).toEqual([{ food: 'pizza' }, { food: 'sushi' }]);
    expect(history.map((v) => v.factId)).toEqual([itemFactId(['users', 'u1'], 'prefs'), itemFactId(['users', 'u1'], 'prefs')]);
    expect(history[0]!.recordedTo).toEqual(history[1]!.recordedFrom);
    expect(history[1]!.recordedTo).toBeNull();

    const audit = await s.audit(['users', 'u1'], 'prefs');
    expect(audit.events.map((e) => [e.type, e.actor])).toEqual([
      ['FactAsserted', 'langgraph'],
      ['FactAsserted', 'langgraph'],
    ]);
    // The fact is an ordinary MemoTrace fact: the client reads it like any other.
    const { versions } = await client.memory('lg-put').history(itemFactId(['users', 'u1'], 'prefs'));
    expect(versions.map((v) => v.dst)).toEqual([
      { literal: 'prefs', datatype: 'string' },
      { literal: 'prefs', datatype: 'string' },
    ]);
  });

  it('deletes by archiving: gone from get, search and listNamespaces, kept in history; a put after it starts a new life', async () => {
    const s = store('lg-delete');
    await s.put(['notes'], 'n1', { text: 'water the plants' });
    const before = (await s.get(['notes'], 'n1'))!;
    await s.delete(['notes'], 'n1');
    expect(await s.get(['notes'], 'n1')).toBeNull();
    expect(await s.search(['notes'])).toEqual([]);
    expect(await s.search(['notes'], { query: 'plants' })).toEqual([]);
    expect(await s.listNamespaces()).toEqual([]);
    await s.delete(['notes'], 'n1'); // deleting what is not there is a no-op
    await s.delete(['notes'], 'never-put');

    await s.put(['notes'], 'n1', { text: 'water the plants' });
    const after = (await s.get(['notes'], 'n1'))!;
    expect(after.createdAt.getTime()).toBeGreaterThanOrEqual(before.updatedAt.getTime());
    expect(after.createdAt).toEqual(after.updatedAt);
    const history = await s.history(['notes'], 'n1');
    expect(history).toHaveLength(2);
    expect(history[0]!.recordedTo).not.toBeNull();
    expect(history[1]!.createdAt).toEqual(history[1]!.recordedFrom);
    expect((await s.audit(['notes'], 'n1')).events.map((e) => e.type)).toEqual(['FactAsserted', 'FactArchived', 'FactAsserted']);
  });

  it('reads the store as of any record time, and refuses writes there', async () => {
    const s = store('lg-asof');
    await s.put(['docs'], 'd1', { title: 'draft' });
    const t1 = (await s.get(['docs'], 'd1'))!.updatedAt;
    await s.put(['docs'], 'd1', { title: 'final' });
    await s.put(['archive', '2024'], 'd0', { title: 'old' });
    await s.delete(['docs'], 'd1');

    const then = s.asOf(t1);
    expect((await then.get(['docs'], 'd1'))!.value).toEqual({ title: 'draft' });
    expect(await then.listNamespaces()).toEqual([['docs']]);
    expect((await then.search(['docs'], { query: 'draft' })).map((i) => i.value)).toEqual([{ title: 'draft' }]);
    expect(await then.history(['docs'], 'd1')).toHaveLength(1);
    expect(await s.asOf(new Date(t1.getTime() - 1)).get(['docs'], 'd1')).toBeNull();
    expect(await s.get(['docs'], 'd1')).toBeNull();
    expect(await s.listNamespaces()).toEqual([['archive', '2024']]);
    await expect(then.put(['docs'], 'd1', { title: 'rewrite' })).rejects.toThrow(/read-only view/);
  });

  it('takes keys of any length: ids derive from a digest of namespace and key', async () => {
    const s = store('lg-long-key');
    const key = 'k'.repeat(300);
    await s.put(['x'], key, { n: 1 });
    await s.put(['x'], 'short', { n: 2 });
    expect((await s.get(['x'], key))!.value).toEqual({ n: 1 });
    expect((await s.get(['x'], 'short'))!.value).toEqual({ n: 2 });
  });
});

describe('MemoTraceStore: batches', () => {
  it("answers a batch's reads from the state before its writes, and writes them in one MemoTrace batch, the last on a key winning", async () => {
    const s = store('lg-batch');
    await s.put(['b'], 'k1', { v: 0 });
    const [read, , , listed] = await s.batch([
      { namespace: ['b'], key: 'k1' },
      { namespace: ['b'], key: 'k1', value: { v: 1 } },
      { namespace: ['b'], key: 'k1', value: { v: 2 } },
      { namespacePrefix: ['b'], limit: 10, offset: 0 },
      { namespace: ['b'], key: 'k2', value: { v: 3 } },
    ]);
    expect(read).toMatchObject({ value: { v: 0 } });
    expect(listed).toHaveLength(1);
    expect((await s.get(['b'], 'k1'))!.value).toEqual({ v: 2 });
    expect((await s.audit(['b'], 'k1')).events).toHaveLength(2); // { v: 1 } was never written
    expect((await s.get(['b'], 'k2'))!.value).toEqual({ v: 3 });
  });

  it('writes the puts of a batch in one MemoTrace batch: nothing of it when MemoTrace refuses one', async () => {
    const s = store('lg-atomic');
    await s.put(['a'], 'ok', { v: 0 });
    await expect(
      s.batch([
        { namespace: ['a'], key: 'ok', value: { v: 1 } },
        { namespace: ['a'], key: 'bad\u0000key', value: { v: 2 } }, // a literal may not hold NUL: 400
      ]),
    ).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
    expect((await s.get(['a'], 'ok'))!.value).toEqual({ v: 0 });
  });
  it("writes a batch over the contract's command limit in several MemoTrace batches, in order", async () => {
    const s = store('lg-big-batch');
    const puts = Array.from({ length: 400 }, (_, i) => ({ namespace: ['big'], key: `k${i}`, value: { i } })); // 3 commands each
    await s.batch(puts);
    const listed = await s.search(['big'], { limit: 1000 });
    expect(listed.map((item) => item.value['i']).sort((a, b) => a - b)).toEqual(puts.map((p) => p.value.i));
  });
});

describe('MemoTraceStore: search and namespaces', () => {
  const s = () => store('lg-search', { index: { fields: ['text'] } });
  beforeAll(async () => {
    await s().batch([
      { namespace: ['users', 'u1', 'memories'], key: 'm1', value: { text: 'Alice likes spicy ramen', kind: 'food', stars: 5 } },
      { namespace: ['users', 'u1', 'memories'], key: 'm2', value: { text: 'Alice plays the cello', kind: 'hobby', stars: 3 } },
      { namespace: ['users', 'u1', 'prefs'], key: 'theme', value: { text: 'dark theme', kind: 'ui', stars: 1 } },
      { namespace: ['users', 'u2', 'memories'], key: 'm1', value: { text: 'Bob likes ramen too', kind: 'food', stars: 4 } },
      { namespace: ['users', 'u2', 'memories'], key: 'secret', value: { text: 'ramen recipe', kind: 'food', stars: 2 }, index: false },
    ]);
    await s().put(['users', 'u1', 'memories'], 'm3', { text: 'Alice moved to Lisbon', kind: 'life', stars: 4 });
  });

  it('lists the items under a prefix that pass the filter, most recently updated first, a page at a time', async () => {
    const keys = (items: { namespace: string[]; key: string }[]) => items.map((i) => [...i.namespace, i.key].join('/'));
    expect(keys(await s().search(['users', 'u1']))[0]).toBe('users/u1/memories/m3');
    expect(keys(await s().search(['users', 'u1', 'memories'])).sort()).toEqual([
      'users/u1/memories/m1',
      'users/u1/memories/m2',
      'users/u1/memories/m3',
    ]);
    expect(keys(await s().search([], { filter: { kind: 'food', stars: { $gte: 4 } } })).sort()).toEqual([
      'users/u1/memories/m1',
      'users/u2/memories/m1',
    ]);
    expect(keys(await s().search(['users'], { filter: { kind: { $in: ['ui', 'life'] } } })).sort()).toEqual([
      'users/u1/memories/m3',
      'users/u1/prefs/theme',
    ]);
    const all = keys(await s().search(['users'], { limit: 10 }));
    expect(all).toHaveLength(6);
    expect(keys(await s().search(['users'], { limit: 2, offset: 2 }))).toEqual(all.slice(2, 4));
    expect(await s().search(['nobody'])).toEqual([]);
  });

  it('ranks by MemoTrace search over the indexed text (or the key), within the prefix and the filter', async () => {
    const found = await s().search(['users'], { query: 'ramen' });
    expect(found.map((i) => i.value['text']).sort()).toEqual(['Alice likes spicy ramen', 'Bob likes ramen too']); // not the unindexed recipe
    expect(found.every((i) => typeof i.score === 'number' && i.score > 0)).toBe(true);
    expect((await s().search(['users', 'u2'], { query: 'ramen' })).map((i) => i.key)).toEqual(['m1']);
    expect((await s().search(['users'], { query: 'ramen', filter: { stars: 5 } })).map((i) => i.key)).toEqual(['m1']);
    expect((await s().search(['users'], { query: 'ramen', limit: 1, offset: 1 })).length).toBe(1);
    expect((await s().search(['users'], { query: 'secret' })).map((i) => i.key)).toEqual(['secret']); // its key is searchable
    expect(await s().search(['users'], { query: 'submarine' })).toEqual([]);
  });

  it('finds an item by its current text only, not by a text it held before', async () => {
    const t = store('lg-search-update', { index: { fields: ['text'] } });
    await t.put(['n'], 'k', { text: 'meeting on tuesday' });
    await t.put(['n'], 'k', { text: 'meeting moved to friday' });
    expect((await t.search(['n'], { query: 'friday' })).map((i) => i.value['text'])).toEqual(['meeting moved to friday']);
    expect(await t.search(['n'], { query: 'tuesday' })).toEqual([]);
    expect((await t.asOf((await t.history(['n'], 'k'))[0]!.recordedFrom).search(['n'], { query: 'tuesday' })).length).toBe(1);
  });

  it('lists namespaces by prefix, suffix and wildcard, cut to a depth, a page at a time', async () => {
    expect(await s().listNamespaces()).toEqual([
      ['users', 'u1', 'memories'],
      ['users', 'u1', 'prefs'],
      ['users', 'u2', 'memories'],
    ]);
    expect(await s().listNamespaces({ suffix: ['memories'] })).toEqual([
      ['users', 'u1', 'memories'],
      ['users', 'u2', 'memories'],
    ]);
    expect(await s().listNamespaces({ prefix: ['users', '*', 'prefs'] })).toEqual([['users', 'u1', 'prefs']]);
    expect(await s().listNamespaces({ maxDepth: 2 })).toEqual([
      ['users', 'u1'],
      ['users', 'u2'],
    ]);
    expect(await s().listNamespaces({ limit: 1, offset: 1 })).toEqual([['users', 'u1', 'prefs']]);
  });
});
