import type { MemoryQueries } from '@memotrace/domain';
import type { EventStore } from '@memotrace/event-store';
import { ConsistencyGate } from './consistency';

describe('ConsistencyGate', () => {
  const projection = {} as MemoryQueries;
  const replay = {} as MemoryQueries;
  // The safe head (10) is behind the highest position handed out (20): an older transaction is still open.
  const store = { headPosition: async () => 10, highestPosition: async () => 20 } as unknown as EventStore;
  const gate = (caughtUp: boolean) =>
    new ConsistencyGate(projection, replay, store, { waitFor: async () => caughtUp }, { minPositionTimeoutMs: 1, headWaitMs: 1 });

  it('answers from the read models once they reach minPosition, and from the log for consistency=replay', async () => {
    expect(await gate(true).source('projection', 15)).toBe(projection);
    expect(await gate(false).source('replay', 15)).toBe(replay);
  });

  it('a position handed out but not yet safe to read is a timeout, not bad input', async () => {
    await expect(gate(false).source('projection', 15)).rejects.toMatchObject({ code: 'TIMEOUT' });
    await expect(gate(false).source('projection', 20)).rejects.toMatchObject({ code: 'TIMEOUT' });
  });

  it('a position no event has is bad input', async () => {
    await expect(gate(false).source('projection', 21)).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
  });
});
