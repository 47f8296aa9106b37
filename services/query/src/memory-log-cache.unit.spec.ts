import type { LogStore } from '@memotrace/log-store';
import { MemoryLogCache } from './replay-queries';
import { fakeMemoryLogs } from './testing/fake-memory-logs';

describe('MemoryLogCache', () => {
  it('reads only the revisions appended since the last read', async () => {
    const { store, append, fetched } = fakeMemoryLogs();
    const cache = new MemoryLogCache(store);
    append('a', 3);
    expect(await cache.read('a')).toHaveLength(3);
    append('a', 2);
    const log = await cache.read('a');
    expect(log.map((e) => e.meta.commandId)).toEqual(['c0', 'c1', 'c2', 'c3', 'c4']);
    expect(fetched).toEqual([3, 2]);
  });

  it('evicts the least recently used memory past its bound, never the one just read', async () => {
    const { store, append, fetched } = fakeMemoryLogs();
    const cache = new MemoryLogCache(store, 5);
    append('a', 3);
    append('b', 3);
    await cache.read('a');
    await cache.read('b'); // 6 held > 5: a goes
    await cache.read('b');
    await cache.read('a');
    expect(fetched).toEqual([3, 3, 0, 3]);
  });

  it('keeps one copy when the same memory is read concurrently', async () => {
    const { store, append } = fakeMemoryLogs();
    const cache = new MemoryLogCache(store, 4);
    append('a', 4);
    const [first, second] = await Promise.all([cache.read('a'), cache.read('a')]);
    expect(first).toHaveLength(4);
    expect(second).toHaveLength(4);
    append('a', 1);
    expect(await cache.read('a')).toHaveLength(5);
  });

  it('fetches a memory once when it is read concurrently, then only what was appended, and survives a failed read', async () => {
    const { store, append, fetched } = fakeMemoryLogs();
    const cache = new MemoryLogCache(store);
    append('a', 50);
    const logs = await Promise.all(Array.from({ length: 8 }, () => cache.read('a')));
    for (const log of logs) expect(log).toHaveLength(50);
    expect(fetched).toEqual([50, 0, 0, 0, 0, 0, 0, 0]);
    const read = store.readStreamContent.bind(store);
    let failNext = true;
    store.readStreamContent = (async (...args: Parameters<LogStore['readStreamContent']>) => {
      if (failNext) {
        failNext = false;
        throw new Error('connection lost');
      }
      return read(...args);
    }) as LogStore['readStreamContent'];
    append('a', 2);
    const [failed, after] = await Promise.allSettled([cache.read('a'), cache.read('a')]);
    expect(failed.status).toBe('rejected');
    expect(after.status === 'fulfilled' && after.value.length).toBe(52);
  });
});
