import { fold, mentionsAt } from '@memotrace/domain';
import type { EventStore, StoredEvent } from '@memotrace/event-store';
import { memoryStreamId, toMemoryEvent } from '@memotrace/memory-log';
import { MemoryLogCache, ReplayMemoryQueries } from './replay-queries';

/** Replay keeps the whole-log state of a memory and folds only appended events; cuts in the past fold from scratch. */
describe('ReplayMemoryQueries whole-log state cache', () => {
  const streams = new Map<string, StoredEvent[]>();
  const recordedAt = (day: number) => `2024-01-${String(day).padStart(2, '0')}T00:00:00.000Z`;
  const append = (memoryId: string, day: number, n: number) => {
    const streamId = memoryStreamId(memoryId);
    const events = streams.get(streamId) ?? [];
    for (let i = 0; i < n; i++) {
      const revision = events.length;
      events.push({
        streamId,
        revision,
        position: revision + 1,
        eventId: `${streamId}-${revision}`,
        type: 'MentionRecorded',
        data: { mentionId: `m${String(revision).padStart(3, '0')}`, docId: 'd', text: 't', speaker: null, occurredAt: null },
        metadata: { commandId: `c${revision}`, recordedAt: recordedAt(day), actor: null, reason: null },
      });
    }
    streams.set(streamId, events);
  };
  const store = { readStreamContent: async (streamId: string, fromRevision = 0) => (streams.get(streamId) ?? []).slice(fromRevision) } as unknown as EventStore;
  const expected = (memoryId: string, at?: string) => mentionsAt(fold((streams.get(memoryStreamId(memoryId)) ?? []).map(toMemoryEvent), at));

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
});
