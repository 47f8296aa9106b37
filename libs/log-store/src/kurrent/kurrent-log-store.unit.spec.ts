import { randomUUID } from 'node:crypto';
import { describeLogStoreConformance } from '../testing/conformance';
import { collect, eventually, newRecord, newRecords, sleep } from '../testing/helpers';
import { KurrentLogStore } from './kurrent-log-store';
import { FakeKurrentClient } from './testing/fake-kurrent-client';

/**
 * The adapter's logic (idempotency on top of KurrentDB's weaker dedup, tag links, filters,
 * inclusive $all reads, position mapping) against an in-memory fake of the client. The same
 * suite runs against a real server in kurrent-log-store.int.spec.ts when EVENTSTORE_URL is set.
 */
describeLogStoreConformance('KurrentLogStore on an in-memory fake of the KurrentDB client', async () => {
  const store = new KurrentLogStore(new FakeKurrentClient().asClient(), { ownsClient: true });
  return { store, teardown: () => store.close() };
});

describe('KurrentLogStore (adapter specifics, on the fake client)', () => {
  let fake: FakeKurrentClient;
  let store: KurrentLogStore;

  beforeEach(() => {
    fake = new FakeKurrentClient();
    store = new KurrentLogStore(fake.asClient(), { ownsClient: true });
  });
  afterEach(() => store.close());

  it('indexes tags as $> links in tag-<tag> streams, pointing at <revision>@<stream>', async () => {
    await store.append('memory-a', [newRecord({ n: 0 }), newRecord({ n: 1 }, ['fact:a:1'])], { expectedRevision: 'no_stream' });
    const links = fake.rawStream('tag-fact:a:1');
    expect(links.map((link) => [link.type, new TextDecoder().decode(link.data)])).toEqual([['$>', '1@memory-a']]);
  });

  it('refuses writes alongside an append (it shares no transaction with PostgreSQL), writing nothing', async () => {
    await expect(store.append('memory-a', newRecords(1), { expectedRevision: 'no_stream', alongside: async () => undefined })).rejects.toThrow(
      /cannot write alongside/,
    );
    expect(await store.readStream('memory-a')).toEqual([]);
  });

  it('writes at the revision it checked, even for "any": a writer slipping in between makes it check again', async () => {
    await store.append('memory-a', newRecords(1), { expectedRevision: 'no_stream' });
    const intruder = newRecord({ intruder: true });
    let slipped = false;
    fake.beforeAppend = (streamId) => {
      if (slipped || streamId !== 'memory-a') return;
      slipped = true;
      fake.appendNow('memory-a', [{ id: intruder.recordId, contentType: 'application/json', type: 'Intruder', data: {}, metadata: undefined }]);
    };
    const mine = newRecords(2);
    const result = await store.append('memory-a', mine, { expectedRevision: 'any' });
    expect(slipped).toBe(true);
    const stream = await store.readStream('memory-a');
    expect(stream.map((event) => event.recordId)).toEqual([stream[0]!.recordId, intruder.recordId, ...mine.map((event) => event.recordId)]);
    expect(result).toEqual({ nextExpectedRevision: 3, position: stream[3]!.position, idempotentRetry: false });
  });

  it('never writes an id twice, even where KurrentDB itself would (an id earlier in the stream)', async () => {
    const [first, second] = newRecords(2);
    await store.append('memory-a', [first!], { expectedRevision: 'no_stream' });
    await store.append('memory-a', [second!], { expectedRevision: 0 });
    const retry = await store.append('memory-a', [first!], { expectedRevision: 1 });
    expect(retry).toMatchObject({ nextExpectedRevision: 1, idempotentRetry: true });
    expect(fake.rawStream('memory-a')).toHaveLength(2);
  });

  it('a second store (another process, cold cache) recognises a retry', async () => {
    const events = newRecords(3, ['fact:a:1']);
    const original = await store.append('memory-a', events, { expectedRevision: 'no_stream' });
    const other = new KurrentLogStore(fake.asClient());
    expect(await other.append('memory-a', events, { expectedRevision: 'no_stream' })).toEqual({ ...original, idempotentRetry: true });
  });

  it('an append that failed between the event write and the tag links gets its links on retry', async () => {
    const events = [newRecord({ n: 0 }, ['fact:a:1'])];
    fake.failNextAppend = (streamId) => streamId.startsWith('tag-');
    await expect(store.append('memory-a', events, { expectedRevision: 'no_stream' })).rejects.toThrow(/connection lost/);
    expect(await store.readByTag('fact:a:1')).toEqual([]);

    const retry = await store.append('memory-a', events, { expectedRevision: 'no_stream' });
    expect(retry.idempotentRetry).toBe(true);
    expect((await store.readByTag('fact:a:1')).map((event) => event.recordId)).toEqual([events[0]!.recordId]);
  });

  it('readByTag drops repeated links and returns log order whatever the link order', async () => {
    const a = newRecord({ n: 'a' }, ['t']);
    const b = newRecord({ n: 'b' }, ['t']);
    await store.append('memory-a', [a], { expectedRevision: 'no_stream' });
    await store.append('memory-b', [b], { expectedRevision: 'no_stream' });
    // Links in the other order, and one of them twice under a new id (the server's ANY dedup is best effort).
    const link = (revision: number, stream: string, id: string) => ({
      id,
      contentType: 'application/octet-stream' as const,
      type: '$>',
      data: new TextEncoder().encode(`${revision}@${stream}`),
      metadata: undefined,
    });
    await fake.appendToStream('tag-t', [link(0, 'memory-b', randomUUID()), link(0, 'memory-a', randomUUID())]);
    expect((await store.readByTag('t')).map((event) => event.recordId)).toEqual([a.recordId, b.recordId]);
  });

  it('keeps tag links and server system events out of readAll, headPosition and subscriptions', async () => {
    const collector = collect(store, { fromPosition: 0 });
    const events = newRecords(4, ['fact:a:1']);
    for (const [i, event] of events.entries()) await store.append('memory-a', [event], { expectedRevision: i - 1 });
    await eventually(
      () => collector.received,
      (received) => received.length >= 4,
    );
    await sleep(50);
    collector.subscription.unsubscribe();

    const all = await store.readAll({ fromPosition: 0, maxCount: 100 });
    expect(all.map((event) => event.recordId)).toEqual(events.map((event) => event.recordId));
    expect(collector.received.map((event) => event.recordId)).toEqual(events.map((event) => event.recordId));
    expect(await store.headPosition()).toBe(all[3]!.position);
    // readAll pages continue exactly after the last event returned (the $all read itself is inclusive).
    expect((await store.readAll({ fromPosition: all[1]!.position, maxCount: 1 })).map((event) => event.recordId)).toEqual([events[2]!.recordId]);
  });

  it('readAll keeps reading when the client-side check drops events the prefix filter let through', async () => {
    // A user stream prefix that also matches tag streams: the server returns the links too.
    const events = newRecords(5, ['x']);
    for (const [i, event] of events.entries()) await store.append(`tag-user-${i}`, [event], { expectedRevision: 'no_stream' });
    const paged: string[] = [];
    for (let from = 0; ;) {
      const page = await store.readAll({ fromPosition: from, maxCount: 2, streamPrefix: 'tag-' });
      if (page.length === 0) break;
      expect(page.length).toBeLessThanOrEqual(2);
      paged.push(...page.map((event) => event.recordId));
      from = page[page.length - 1]!.position;
    }
    expect(paged).toEqual(events.map((event) => event.recordId));
    expect((await store.readAll({ fromPosition: 0, maxCount: 10, streamPrefix: 'tag-' })).map((event) => event.recordId)).toEqual(paged);
  });

  it('close() completes live subscriptions and refuses further calls', async () => {
    let completed = false;
    store.subscribe({ fromPosition: 0 }).subscribe({ complete: () => (completed = true) });
    await store.close();
    expect(completed).toBe(true);
    expect(fake.disposed).toBe(true);
    await expect(store.append('memory-a', newRecords(1), { expectedRevision: 'any' })).rejects.toThrow(/closed/);
  });
});
