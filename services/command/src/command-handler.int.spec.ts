import { type Command, DomainError } from '@memotrace/domain';
import { usePostgresStore } from '@memotrace/log-store/testing';
import { memoryStreamId } from '@memotrace/memory-log';
import { InMemorySubjectKeyStore } from '@memotrace/subject-keys/testing';
import { CommandHandler } from './command-handler';

/**
 * Two command processes on one log: optimistic concurrency on the memory's stream
 * makes them re-decide against each other's writes, never lose or double one.
 */
const clock = { now: () => '2024-01-01T00:00:00.000Z' };
const keys = new InMemorySubjectKeyStore();
const entity = (i: number): Command => ({ op: 'UPSERT_ENTITY', commandId: `c-${i}`, entityId: `e${i}`, name: `E ${i}` });

describe('CommandHandler on a shared log', () => {
  const opened = usePostgresStore();

  it('lets two handlers (two processes) write one memory concurrently without losing a command', async () => {
    const { store } = opened;
    const a = new CommandHandler(store, clock, keys);
    const b = new CommandHandler(store, clock, keys);
    const writes = Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? a : b).handle('shared', [entity(i)]));
    const outcomes = await Promise.all(writes);
    expect(outcomes.every((o) => o.results[0]!.status === 'applied')).toBe(true);
    const log = await store.readStream(memoryStreamId('shared'));
    expect(log.map((e) => e.metadata.commandId).sort()).toEqual(Array.from({ length: 40 }, (_, i) => `c-${i}`).sort());
    expect(log.map((e) => e.revision)).toEqual(Array.from({ length: 40 }, (_, i) => i));
  });

  it('answers a retry seen by the other process as a duplicate', async () => {
    const { store } = opened;
    const a = new CommandHandler(store, clock, keys);
    const b = new CommandHandler(store, clock, keys);
    const first = await a.handle('retry', [entity(1)]);
    const again = await b.handle('retry', [entity(1)]);
    expect(again.results[0]).toEqual({ ...first.results[0], status: 'duplicate' });
    expect(again.position).toBe(first.position);
    expect(await store.readStream(memoryStreamId('retry'))).toHaveLength(1);
  });

  it('makes a batch made from the state again from the state it re-decides against, after a conflict', async () => {
    const { store } = opened;
    const b = new CommandHandler(store, clock, keys);
    let armed = false;
    // Another process writes the memory between this one's decision and its append.
    const racing = Object.assign(Object.create(store) as typeof store, {
      append: async (...args: Parameters<typeof store.append>) => {
        if (armed) {
          armed = false;
          await b.handle('made', [entity(2)]);
        }
        return store.append(...args);
      },
    });
    const a = new CommandHandler(racing, clock, keys);
    await a.handle('made', [entity(1)]);
    armed = true;
    const seen: number[] = [];
    const outcome = await a.handle('made', (state) => {
      seen.push(state.eventCount);
      return [{ op: 'UPSERT_ENTITY', commandId: 'counted', entityId: 'counter', name: `after ${state.eventCount}` }];
    });
    expect(seen).toEqual([1, 2]);
    expect(outcome.results[0]!.status).toBe('applied');
    expect(await a.readState('made', (state) => [state.eventCount, state.entities.get('counter')?.name])).toEqual([3, 'after 2']);
  });

  it('keeps serving a memory after a rejected batch (its cached state is dropped)', async () => {
    const { store } = opened;
    const handler = new CommandHandler(store, clock, keys);
    await handler.handle('after-error', [entity(1)]);
    await expect(handler.handle('after-error', [entity(2), { op: 'ARCHIVE_EDGE', commandId: 'bad', factId: 'nope' }])).rejects.toBeInstanceOf(
      DomainError,
    );
    const next = await handler.handle('after-error', [entity(2)]);
    expect(next.results[0]!.status).toBe('applied');
    expect((await store.readStream(memoryStreamId('after-error'))).map((e) => e.metadata.commandId)).toEqual(['c-1', 'c-2']);
  });
});
