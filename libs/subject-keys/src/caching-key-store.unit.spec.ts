import { CachingKeyStore } from './caching-key-store';
import type { KeyRef, KeySet, NewKeySet, SubjectErasure, SubjectKeyStore } from './subject-key-store';
import { InMemorySubjectKeyStore } from './testing/in-memory-key-store';

/** The in-memory store, with what it was asked recorded. */
class RecordingStore implements SubjectKeyStore {
  readonly inner = new InMemorySubjectKeyStore();
  readonly calls: string[] = [];
  /** When set, keySets() waits for it before answering (after reading). */
  gate: Promise<void> | undefined;

  newKeys(count: number) {
    return this.inner.newKeys(count);
  }

  writeKeySet(memoryId: string, keySet: NewKeySet): Promise<void> {
    return this.inner.writeKeySet(memoryId, keySet);
  }

  async keySets(memoryId: string, ids: readonly number[]): Promise<Map<number, KeySet>> {
    this.calls.push(`keySets ${memoryId} ${ids.join(',')}`);
    const found = await this.inner.keySets(memoryId, ids);
    await this.gate;
    return found;
  }

  legacyKeys(memoryId: string, refs: readonly KeyRef[]): Promise<Map<string, Buffer | null>> {
    this.calls.push(`legacyKeys ${memoryId}`);
    return this.inner.legacyKeys(memoryId, refs);
  }

  destroy(memoryId: string, erasures: readonly SubjectErasure[]): Promise<void> {
    this.calls.push(`destroy ${memoryId} ${named(erasures)}`);
    return this.inner.destroy(memoryId, erasures);
  }

  confirmDestroyed(memoryId: string, erasures: readonly SubjectErasure[]): Promise<void> {
    this.calls.push(`confirm ${memoryId} ${named(erasures)}`);
    return this.inner.confirmDestroyed(memoryId, erasures);
  }
}

const named = (erasures: readonly SubjectErasure[]) => erasures.map((e) => `${e.subject.kind}:${e.subject.id}@${e.throughGeneration}`).join(',');
const erasure = (id: string, throughGeneration = 0): SubjectErasure => ({ subject: { kind: 'entity', id }, throughGeneration });

/** Writes a key set of `boxes` keys to the store, box i guarded by entity e<i>, generation 0. */
async function keySet(store: SubjectKeyStore, memoryId: string, id: number, boxes: number): Promise<Buffer> {
  const { keys, seeds } = store.newKeys(boxes);
  const subjects = Array.from({ length: boxes }, (_, i) => `entity:0:e${i}`);
  await store.writeKeySet(memoryId, { id, seeds, subjects, guards: subjects.map((_, i) => i) }, { query: async () => ({}) as never });
  return keys;
}

describe('CachingKeyStore', () => {
  it('asks the inner store for key sets it has not cached only, per memory', async () => {
    const inner = new RecordingStore();
    const store = new CachingKeyStore(inner);
    const keys = await keySet(store, 'm', 0, 2);
    await keySet(store, 'm', 2, 1);
    await keySet(store, 'n', 0, 1);
    const first = await store.keySets('m', [0, 2, 0]);
    const second = await store.keySets('m', [2, 0, 7]);
    await store.keySets('n', [0]);
    expect(inner.calls).toEqual(['keySets m 0,2', 'keySets m 7', 'keySets n 0']);
    expect(first.get(0)!.key(1)).toEqual(keys.subarray(32, 64));
    expect(second.get(0)).toBe(first.get(0));
    expect([...second.keys()].sort()).toEqual([0, 2]);
    expect(store.size).toBe(3);
  });

  it('destroying drops the memory’s cached key sets: the next read sees the destroyed key; other memories keep theirs', async () => {
    const inner = new RecordingStore();
    const store = new CachingKeyStore(inner);
    await keySet(store, 'm', 0, 2);
    await keySet(store, 'n', 0, 2);
    await store.keySets('m', [0]);
    await store.keySets('n', [0]);
    await store.destroy('m', [erasure('e1')]);
    expect((await store.keySets('m', [0])).get(0)!.key(1)).toBeNull();
    expect((await store.keySets('n', [0])).get(0)!.key(1)).not.toBeNull();
    expect(inner.calls).toEqual(['keySets m 0', 'keySets n 0', 'destroy m entity:e1@0', 'keySets m 0']);
  });

  it('an erasure met again writes nothing: confirmed once per process, and never after this process destroyed it', async () => {
    const inner = new RecordingStore();
    const store = new CachingKeyStore(inner);
    await keySet(store, 'm', 0, 3);
    await store.destroy('m', [erasure('e0')]);
    await store.confirmDestroyed('m', [erasure('e0')]); // its own: known
    await store.confirmDestroyed('m', [erasure('e1'), erasure('e0')]); // e1 is new to it (another process's)
    await store.confirmDestroyed('m', [erasure('e1'), erasure('e0')]);
    await store.confirmDestroyed('m', [erasure('e1', 1)]); // a later generation is new again
    expect(inner.calls).toEqual(['destroy m entity:e0@0', 'confirm m entity:e1@0', 'confirm m entity:e1@1']);
    // Confirming drops the memory's cached key sets: another process's destroy must not leave a key here.
    const set = (await store.keySets('m', [0])).get(0)!;
    expect([set.key(0), set.key(1)]).toEqual([null, null]);
    await store.confirmDestroyed('m', [erasure('e1', 1)]);
    await store.keySets('m', [0]);
    expect(inner.calls.slice(3)).toEqual(['keySets m 0']);
  });

  it('does not keep a key set read while the memory was invalidated', async () => {
    const inner = new RecordingStore();
    const store = new CachingKeyStore(inner);
    await keySet(store, 'm', 0, 2);
    let open!: () => void;
    inner.gate = new Promise((resolve) => (open = resolve));
    const reading = store.keySets('m', [0]); // reads the key before it is destroyed, answers after
    await new Promise((resolve) => setImmediate(resolve));
    await store.destroy('m', [erasure('e1')]);
    open();
    expect((await reading).get(0)!.key(1)).not.toBeNull(); // what it read, answered once
    inner.gate = undefined;
    expect((await store.keySets('m', [0])).get(0)!.key(1)).toBeNull();
    expect(inner.calls.filter((call) => call.startsWith('keySets'))).toHaveLength(2);
  });

  it('forgetMemory drops the memory’s key sets and what it knew of its erasures', async () => {
    const inner = new RecordingStore();
    const store = new CachingKeyStore(inner);
    await keySet(store, 'm', 0, 2);
    await store.keySets('m', [0]);
    await store.destroy('m', [erasure('e0')]);
    store.forgetMemory('m');
    await store.confirmDestroyed('m', [erasure('e0')]);
    await store.keySets('m', [0]);
    await store.keySets('m', [0]);
    expect(inner.calls).toEqual(['keySets m 0', 'destroy m entity:e0@0', 'confirm m entity:e0@0', 'keySets m 0']);
  });

  it('destroying nothing keeps the cache', async () => {
    const inner = new RecordingStore();
    const store = new CachingKeyStore(inner);
    await keySet(store, 'm', 0, 1);
    await store.keySets('m', [0]);
    await store.destroy('m', []);
    await store.keySets('m', [0]);
    expect(inner.calls).toEqual(['keySets m 0']);
  });

  it('keeps at most maxKeys keys: the least recently used key sets go first', async () => {
    const inner = new RecordingStore();
    const store = new CachingKeyStore(inner, { maxKeys: 5 });
    for (const id of [0, 1, 2]) await keySet(store, 'm', id, 2);
    await store.keySets('m', [0, 1]);
    await store.keySets('m', [0]); // 0 is now the most recent
    await store.keySets('m', [2]); // 6 keys: 1 goes
    expect(store.size).toBe(2);
    await store.keySets('m', [0, 2, 1]);
    expect(inner.calls).toEqual(['keySets m 0,1', 'keySets m 2', 'keySets m 1']);
  });

  it('passes key sets written and fresh keys through, and reads keys of the first format from the inner store each time', async () => {
    const inner = new RecordingStore();
    const store = new CachingKeyStore(inner);
    const ref: KeyRef = { kind: 'entity', id: 'old', generation: 0 };
    expect(await store.legacyKeys('m', [ref])).toEqual(new Map([['entity:0:old', null]]));
    await store.legacyKeys('m', [ref]);
    expect(inner.calls).toEqual(['legacyKeys m', 'legacyKeys m']);
    expect(store.newKeys(2).keys).toHaveLength(64);
  });
});
