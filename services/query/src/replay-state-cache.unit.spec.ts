import { fold, mentionsAt } from '@memotrace/domain';
import { MemoryLogCache, ReplayMemoryQueries } from './replay-queries';
import { fakeMemoryLogs } from './testing/fake-memory-logs';

/** Replay keeps the whole-log state of a memory and folds only appended events; cuts in the past fold from scratch. */
describe('ReplayMemoryQueries whole-log state cache', () => {
  const { store, append: appendOn, log } = fakeMemoryLogs();
  const recordedAt = (day: number) => `2024-01-${String(day).padStart(2, '0')}T00:00:00.000Z`;
  const append = (memoryId: string, day: number, n: number) => appendOn(memoryId, n, recordedAt(day));
  const expected = (memoryId: string, at?: string) => mentionsAt(fold(log(memoryId), at));

  it('answers like a fresh fold at every cut while the log grows', async () => {
    const replay = new ReplayMemoryQueries(new MemoryLogCache(store), 2);
    const memories = ['a', 'b', 'c'];
    for (let day = 1; day <= 6; day++) {
      for (const m of memories) {
        append(m, day, 3);
        for (const at of [recordedAt(9), recordedAt(day), recordedAt(Math.max(1, day - 1))]) {
          expect(await replay.mentions(m, at)).toEqual(expected(m, at));
        }
        expect(await replay.history(m, 'nope')).toBeNull(); // the uncut path (no recordedAt) too
      }
    }
    expect((await replay.mentions('a', recordedAt(9))).length).toBe(18);
    expect((await replay.mentions('a', recordedAt(3))).length).toBe(9);
  });

  it('keeps a past cut exact while its memory grows, and apart from other memories at the same time', async () => {
    const replay = new ReplayMemoryQueries(new MemoryLogCache(store));
    append('p', 1, 2);
    append('p', 2, 2);
    append('q', 1, 5);
    append('q', 2, 1);
    expect(await replay.mentions('p', recordedAt(1))).toEqual(expected('p', recordedAt(1)));
    append('p', 3, 4);
    expect(await replay.mentions('p', recordedAt(1))).toHaveLength(2);
    expect(await replay.mentions('q', recordedAt(1))).toHaveLength(5);
    expect(await replay.mentions('p', recordedAt(2))).toEqual(expected('p', recordedAt(2)));
    expect(await replay.mentions('p', recordedAt(1))).toEqual(expected('p', recordedAt(1)));
  });
});
