import type { MemoryQueries } from '@memotrace/domain';
import type { LogStore, StoredRecord } from '@memotrace/log-store';
import { memoryStreamId } from '@memotrace/memory-log';
import { ConsistencyGate } from './consistency';

describe('ConsistencyGate', () => {
  const projection = {} as MemoryQueries;
  const replay = {} as MemoryQueries;
  // Memory m's 7 events sit at these log positions (other memories wrote in between).
  const logPositions = [3, 5, 8, 13, 14, 17, 19];
  const store = {
    streamPosition: async (id: string) => (id === memoryStreamId('m') ? 19 : 0),
    readStream: async (id: string, { fromRevision = 0, maxCount = Infinity }: { fromRevision?: number; maxCount?: number }) =>
      (id === memoryStreamId('m') ? logPositions : [])
        .map((position, revision) => ({ position, revision }) as StoredRecord)
        .slice(fromRevision, fromRevision + maxCount),
  } as unknown as LogStore;
  const waited: number[] = [];
  const gate = (caughtUp: boolean) =>
    new ConsistencyGate(
      projection,
      replay,
      store,
      { waitFor: async (position) => (waited.push(position), caughtUp) },
      { minPositionTimeoutMs: 1, ownWritesWaitMs: 1 },
    );

  const waitsForMinPosition =
    "waits for the log position of the memory's event at minPosition, then answers from the read models; consistency=replay answers from the log";
  it(waitsForMinPosition, async () => {
    waited.length = 0;
    expect(await gate(true).source('m', 'projection', 4)).toBe(projection);
    expect(waited).toEqual([13]);
    expect(await gate(false).source('m', 'replay', 4)).toBe(replay);
    expect(await gate(true).source('m', 'projection', 0)).toBe(projection);
  });

  it('read models that do not get there in time are a timeout, not bad input', async () => {
    await expect(gate(false).source('m', 'projection', 7)).rejects.toMatchObject({ code: 'TIMEOUT' });
  });

  const waitsForLastEvent =
    'without minPosition, waits for the memory\u2019s last event (not the log head) and answers from the read models even if it does not come';
  it(waitsForLastEvent, async () => {
    waited.length = 0;
    expect(await gate(false).source('m', 'projection')).toBe(projection);
    expect(waited).toEqual([19]);
  });

  it('a memory without records is 404 UNKNOWN_MEMORY from either source, with or without minPosition, without waiting', async () => {
    waited.length = 0;
    for (const consistency of ['projection', 'replay'] as const) {
      for (const minPosition of [undefined, 0, 1]) {
        await expect(gate(true).source('other', consistency, minPosition)).rejects.toMatchObject({ code: 'UNKNOWN_MEMORY', status: 404 });
      }
    }
    expect(waited).toEqual([]);
  });

  it('a position beyond the memory\u2019s log is bad input, refused without waiting, whatever other memories wrote', async () => {
    waited.length = 0;
    await expect(gate(true).source('m', 'projection', 8)).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
    await expect(gate(true).source('m', 'replay', 8)).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
    expect(waited).toEqual([]);
    expect(await gate(true).source('m', 'replay', 7)).toBe(replay);
  });
});
