import type { EventStore, StoredEvent } from '@memotrace/event-store';
import { MemoryLogCache } from './replay-queries';

/** A fake log: per-stream events, counting what each read fetched. */
function fakeStore() {
  const streams = new Map<string, StoredEvent[]>();
  const fetched: number[] = [];
  const append = (streamId: string, n: number) => {
    const events = streams.get(streamId) ?? [];
    for (let i = 0; i < n; i++) {
      const revision = events.length;
      events.push({
        streamId,
        revision,
        position: revision + 1,
        eventId: `${streamId}-${revision}`,
        type: 'MentionRecorded',
        data: { mentionId: `m${revision}`, docId: 'd', text: 't', speaker: null, occurredAt: null },
        metadata: { commandId: `c${revision}`, recordedAt: '2024-01-01T00:00:00.000Z', actor: null, reason: null },
      });
    }
    streams.set(streamId, events);
  };
  const store = {
    async readStreamContent(streamId: string, fromRevision = 0) {
      const page = (streams.get(streamId) ?? []).slice(fromRevision);
      fetched.push(page.length);
      return page;
    },
  } as unknown as EventStore;
  return { store, append, fetched };
}

describe('MemoryLogCache', () => {
  it('reads only the revisions appended since the last read', async () => {
    const { store, append, fetched } = fakeStore();
    const cache = new MemoryLogCache(store);
    append('memory-a', 3);
    expect(await cache.read('a')).toHaveLength(3);
    append('memory-a', 2);
    const log = await cache.read('a');
    expect(log.map((e) => e.meta.commandId)).toEqual(['c0', 'c1', 'c2', 'c3', 'c4']);
    expect(fetched).toEqual([3, 2]);
  });

  it('evicts the least recently used memory past its bound, never the one just read', async () => {
    const { store, append, fetched } = fakeStore();
    const cache = new MemoryLogCache(store, 5);
    append('memory-a', 3);
    append('memory-b', 3);
    await cache.read('a');
    await cache.read('b'); // 6 held > 5: a goes
    await cache.read('b');
    await cache.read('a');
    expect(fetched).toEqual([3, 3, 0, 3]);
  });

  it('keeps one copy when the same memory is read concurrently', async () => {
    const { store, append } = fakeStore();
    const cache = new MemoryLogCache(store, 4);
    append('memory-a', 4);
    const [first, second] = await Promise.all([cache.read('a'), cache.read('a')]);
    expect(first).toHaveLength(4);
    expect(second).toHaveLength(4);
    append('memory-a', 1);
    expect(await cache.read('a')).toHaveLength(5);
  });
});
