import { type Command, decideBatch, initialState } from '@memotrace/domain';
import type { LogStore, StoredRecord } from '@memotrace/log-store';
import { memoryStreamId, toNewRecords } from '@memotrace/memory-log';
import { MemoryStateCache } from './memory-state-cache';

/** Streams of `events` UPSERT_ENTITY records per memory (or as many as `sizes` says); counts the records read back. */
function storeWithMemories(memories: string[], events: number, sizes: Record<string, number> = {}) {
  const streams = new Map<string, StoredRecord[]>();
  let position = 0;
  for (const memoryId of memories) {
    const commands = Array.from(
      { length: sizes[memoryId] ?? events },
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
  const drop = (memoryId: string) => streams.delete(memoryStreamId(memoryId));
  const store = {
    readStreamContent: async (streamId: string, fromRevision = 0, maxCount = Number.POSITIVE_INFINITY) => {
      const newer = (streams.get(streamId) ?? []).slice(fromRevision, fromRevision + maxCount);
      reads.events += newer.length;
      return newer;
    },
  } as unknown as LogStore;
  return { store, reads, drop };
}

describe('MemoryStateCache', () => {
  it('evicts least recently used memories once the cached events exceed the budget', async () => {
    const { store, reads } = storeWithMemories(['a', 'b', 'c'], 10);
    const cache = new MemoryStateCache(store, 25, 1000);
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

  it('refuses a memory that alone exceeds the budget, keeps serving the others, and folds it again once deleted', async () => {
    const { store, reads, drop } = storeWithMemories(['big', 'small'], 30, { small: 10 });
    const cache = new MemoryStateCache(store, 25, 1000);
    await cache.load('small');
    await expect(cache.load('big')).rejects.toMatchObject({ code: 'MEMORY_TOO_LARGE', status: 503 });
    expect(cache.cachedMemories()).toEqual(['small']);
    expect((await cache.load('small')).eventCount).toBe(10);
    // Known too large: one record read shows it still is, instead of folding it again.
    reads.events = 0;
    await expect(cache.load('big')).rejects.toThrow(/at least 30 log records.*STATE_CACHE_RECORDS=25/);
    expect(reads.events).toBe(1);
    drop('big');
    expect((await cache.load('big')).eventCount).toBe(0);
  });

  it('folds a long log page by page, never past the bound', async () => {
    const { store, reads } = storeWithMemories(['long'], 25_000);
    const cache = new MemoryStateCache(store, 15_000, 1000);
    await expect(cache.load('long')).rejects.toMatchObject({ code: 'MEMORY_TOO_LARGE' });
    expect(reads.events).toBe(20_000);
  });

  it('still bounds the number of memories', async () => {
    const { store } = storeWithMemories(['a', 'b', 'c'], 1);
    const cache = new MemoryStateCache(store, 1000, 2);
    for (const id of ['a', 'b', 'c']) await cache.load(id);
    expect(cache.cachedMemories()).toEqual(['b', 'c']);
  });
});
