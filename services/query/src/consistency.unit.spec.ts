import type { Checkpointed, MemoryQueries, ProjectedMemoryQueries } from '@memotrace/domain';
import type { LogStore, StoredRecord } from '@memotrace/log-store';
import { memoryStreamId } from '@memotrace/memory-log';
import { ConsistencyGate, type ProjectionProgress } from './consistency';

describe('ConsistencyGate', () => {
  const projection = {} as ProjectedMemoryQueries;
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

  describe('read: the position lookup and the read models\u2019 read at once', () => {
    /** A read whose read-models answers are `checkpoints` in turn (answered 'read 1', 'read 2', ...), with the order of events. */
    const reads = (checkpoints: number[], events: string[] = []) => {
      let n = 0;
      return {
        events,
        count: () => n,
        replay: async () => (events.push('replay'), 'replay'),
        projection: async (): Promise<Checkpointed<string>> => {
          n += 1;
          events.push(`read ${n}`);
          return { answer: `read ${n}`, checkpoint: checkpoints[n - 1]! };
        },
      };
    };
    /** The store, with its stream position lookups logged in `events` and held until `release`. */
    const heldStore = (events: string[]) => {
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      const held = {
        ...store,
        streamPosition: async (id: string) => {
          events.push('lookup');
          await released;
          return store.streamPosition(id);
        },
      } as LogStore;
      return { held, release };
    };
    const never: ProjectionProgress = {
      waitFor: async () => {
        throw new Error('waited');
      },
    };
    const gateOver = (logStore: LogStore, progress: ProjectionProgress) =>
      new ConsistencyGate(projection, replay, logStore, progress, { minPositionTimeoutMs: 1, ownWritesWaitMs: 1 });

    const keepsFirst =
      'keeps the first answer when its checkpoint has reached the memory\u2019s last record, read while the lookup runs, without waiting';
    it(keepsFirst, async () => {
      const read = reads([19]);
      const { held, release } = heldStore(read.events);
      const answer = gateOver(held, never).read('m', 'projection', undefined, read);
      await new Promise((resolve) => setImmediate(resolve));
      expect(read.events).toEqual(['read 1', 'lookup']); // the read did not wait for the lookup
      release();
      expect(await answer).toBe('read 1');
    });

    it('an answer read before the read models had the memory\u2019s last record is read again once they have it', async () => {
      const read = reads([18, 19]);
      const gate = gateOver(store, { waitFor: async (position) => (read.events.push(`wait ${position}`), true) });
      expect(await gate.read('m', 'projection', undefined, read)).toBe('read 2');
      expect(read.events).toEqual(['read 1', 'wait 19', 'read 2']);
    });

    it('without minPosition, read models that do not get there in time still answer (read again after the wait)', async () => {
      const read = reads([3, 3]);
      expect(await gateOver(store, { waitFor: async () => false }).read('m', 'projection', undefined, read)).toBe('read 2');
    });

    const comparesMinPosition =
      'with minPosition: the checkpoint is compared with the log position of the memory\u2019s event there; a wait that times out is TIMEOUT';
    it(comparesMinPosition, async () => {
      const enough = reads([13]);
      expect(await gateOver(store, { waitFor: async () => false }).read('m', 'projection', 4, enough)).toBe('read 1');
      const behind = reads([12, 13]);
      const waits: number[] = [];
      expect(await gateOver(store, { waitFor: async (position) => (waits.push(position), true) }).read('m', 'projection', 4, behind)).toBe('read 2');
      expect(waits).toEqual([13]);
      const late = reads([12]);
      await expect(gateOver(store, { waitFor: async () => false }).read('m', 'projection', 4, late)).rejects.toMatchObject({ code: 'TIMEOUT' });
      expect(late.count()).toBe(1);
    });

    const lookupFirst =
      'the lookup decides first: an unknown memory is 404 and a position beyond its log is bad input, whatever the read found or failed with';
    it(lookupFirst, async () => {
      for (const projectionRead of [async () => ({ answer: 'found', checkpoint: 99 }), () => Promise.reject(new Error('read failed'))]) {
        const read = { replay: async () => 'replay', projection: projectionRead };
        await expect(gateOver(store, never).read('other', 'projection', undefined, read)).rejects.toMatchObject({
          code: 'UNKNOWN_MEMORY',
          status: 404,
        });
        await expect(gateOver(store, never).read('other', 'projection', 1, read)).rejects.toMatchObject({ code: 'UNKNOWN_MEMORY' });
        await expect(gateOver(store, never).read('m', 'projection', 8, read)).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
      }
      const failing = { replay: async () => 'replay', projection: () => Promise.reject(new Error('read failed')) };
      await expect(gateOver(store, never).read('m', 'projection', undefined, failing)).rejects.toThrow('read failed');
    });

    it('consistency=replay answers by replay after the lookup, never reading the read models', async () => {
      const read = reads([]);
      expect(await gateOver(store, never).read('m', 'replay', undefined, read)).toBe('replay');
      expect(await gateOver(store, never).read('m', 'replay', 7, read)).toBe('replay');
      expect(read.count()).toBe(0);
      await expect(gateOver(store, never).read('other', 'replay', undefined, read)).rejects.toMatchObject({ code: 'UNKNOWN_MEMORY' });
      await expect(gateOver(store, never).read('m', 'replay', 8, read)).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
    });
  });
});
