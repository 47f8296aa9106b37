import { type Command, decideBatch, initialState } from '@memotrace/domain';
import type { LogStore, StoredRecord } from '@memotrace/log-store';
import { memoryStreamId, toNewRecords } from '@memotrace/memory-log';
import { MemoryStateCache } from './memory-state-cache';

/** Streams of `events` UPSERT_ENTITY events per memory; counts the events read back. */
function storeWithMemories(memories: string[], events: number) {
  const streams = new Map<string, StoredRecord[]>();
  let position = 0;
  for (const memoryId of memories) {
    const commands = Array.from(
      { length: events },
      (_, i) => ({ op: 'UPSERT_ENTITY', commandId: `c${i}`, entityId: `e${i}`, name: `E ${i}` }) as Command,
    );
    const decided = decideBatch(memoryId, initialState(), commands, '2024-01-01T00:00:00.000Z').records;
    const streamId = memoryStreamId(memoryId);
    streams.set(
      streamId,
      toNewRecords(memoryId, decided).map((event, revision) => ({ ...event, streamId, revision, position: ++position })),
    );
  }
  const reads = { events: 0 };
  const store = {
    readStreamContent: async (streamId: string, fromRevision = 0) => {
      const newer = (streams.get(streamId) ?? []).slice(fromRevision);
      reads.events += newer.length;
      return newer;
    },
  } as unknown as LogStore;
  return { store, reads };
}

describe('MemoryStateCache', () => {
  it('evicts least recently used memories once the cached events exceed the budget', async () => {
    const { store, reads } = storeWithMemories(['a', 'b', 'c'], 10);
    const cache = new MemoryStateCache(store, 1000, 25);
    await cache.load('a');
    await cache.load('b');
    expect(cache.cachedMemories()).toEqual(['a', 'b']);
    await cache.load('c'); // 30 events > 25: the oldest goes
    expect(cache.cachedMemories()).toEqual(['b', 'c']);
    reads.events = 0;
    const b = await cache.load('b'); // cached: nothing re-read
    expect(reads.events).toBe(0);
    expect(b.eventCount).toBe(10);
    const a = await cache.load('a'); // evicted: folded again from its stream, evicting c
    expect(reads.events).toBe(10);
    expect(a.entities.size).toBe(10);
    expect(cache.cachedMemories()).toEqual(['b', 'a']);
  });

  it('keeps the memory in use even when it alone exceeds the budget', async () => {
    const { store } = storeWithMemories(['big', 'small'], 30);
    const cache = new MemoryStateCache(store, 1000, 25);
    await cache.load('small');
    await cache.load('big');
    expect(cache.cachedMemories()).toEqual(['big']);
  });

  it('still bounds the number of memories', async () => {
    const { store } = storeWithMemories(['a', 'b', 'c'], 1);
    const cache = new MemoryStateCache(store, 2);
    for (const id of ['a', 'b', 'c']) await cache.load(id);
    expect(cache.cachedMemories()).toEqual(['b', 'c']);
  });
});
