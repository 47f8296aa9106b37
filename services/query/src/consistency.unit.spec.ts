import type { MemoryQueries } from '@memotrace/domain';
import type { EventStore } from '@memotrace/event-store';
import { memoryStreamId } from '@memotrace/memory-log';
import { ConsistencyGate } from './consistency';

describe('ConsistencyGate', () => {
  const projection = {} as MemoryQueries;
  const replay = {} as MemoryQueries;
  // The safe head (10) is behind the highest position handed out (20): an older transaction is still open.
  const store = { headPosition: async () => 10, highestPosition: async () => 20, streamPosition: async (id: string) => (id === memoryStreamId('m') ? 7 : 0) } as unknown as EventStore;
  const waited: number[] = [];
  const timeouts: number[] = [];
  const gate = (caughtUp: boolean) =>
    new ConsistencyGate(projection, replay, store, { waitFor: async (position, timeoutMs) => (waited.push(position), timeouts.push(timeoutMs), caughtUp) }, { minPositionTimeoutMs: 1, ownWritesWaitMs: 1 });

  it('answers from the read models once they reach minPosition, and from the log for consistency=replay', async () => {
    expect(await gate(true).source('m', 'projection', 15)).toBe(projection);
    expect(await gate(false).source('m', 'replay', 15)).toBe(replay);
  });

  it('a position handed out but not yet safe to read is a timeout, not bad input', async () => {
    await expect(gate(false).source('m', 'projection', 15)).rejects.toMatchObject({ code: 'TIMEOUT' });
    await expect(gate(false).source('m', 'projection', 20)).rejects.toMatchObject({ code: 'TIMEOUT' });
  });

  it('without minPosition, waits for the memory\u2019s last event (not the log head) and answers from the read models even if it does not come', async () => {
    waited.length = 0;
    expect(await gate(false).source('m', 'projection')).toBe(projection);
    expect(await gate(true).source('other', 'projection')).toBe(projection);
    expect(waited).toEqual([7, 0]);
  });

  it('a position no event has is bad input, refused without waiting', async () => {
    timeouts.length = 0;
    await expect(gate(false).source('m', 'projection', 21)).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
    expect(timeouts).toEqual([0]);
    await expect(gate(true).source('m', 'replay', 21)).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
    expect(await gate(true).source('m', 'replay', 20)).toBe(replay);
  });
});
