import { randomBytes } from 'node:crypto';
import { CachingKeyStore } from './caching-key-store';
import { type KeyRef, type KeysOptions, type SubjectKeyStore, type SubjectKind, keyRefString } from './subject-key-store';

/** An in-memory store that records what it was asked. */
class RecordingStore implements SubjectKeyStore {
  readonly material = new Map<string, Buffer | null>();
  readonly asked: string[] = [];
  readonly calls: string[] = [];
  /** When set, keys() waits for it before answering. */
  gate: Promise<void> | undefined;

  async keys(memoryId: string, refs: readonly KeyRef[], options: KeysOptions): Promise<Map<string, Buffer | null>> {
    this.calls.push(`keys ${memoryId} ${options.create}`);
    // Proposes what it will create, as a store waiting on a server does.
    if (options.create && options.onProposed) {
      const proposed = new Map<string, Buffer>();
      for (const ref of refs) {
        const slot = `${memoryId}/${keyRefString(ref)}`;
        if (!this.material.has(slot)) this.material.set(slot, randomBytes(32));
        const key = this.material.get(slot);
        if (key) proposed.set(keyRefString(ref), key);
      }
      options.onProposed(proposed);
    }
    await this.gate;
    const found = new Map<string, Buffer | null>();
    for (const ref of refs) {
      const refString = keyRefString(ref);
      this.asked.push(`${memoryId}/${refString}`);
      const slot = `${memoryId}/${refString}`;
      if (!this.material.has(slot) && options.create) this.material.set(slot, randomBytes(32));
      found.set(refString, this.material.get(slot) ?? null);
    }
    return found;
  }

  async destroy(memoryId: string, subject: { kind: SubjectKind; id: string }, throughGeneration: number): Promise<void> {
    this.calls.push(`destroy ${memoryId} ${subject.kind}:${subject.id} ${throughGeneration}`);
    for (let generation = 0; generation <= throughGeneration; generation++) {
      this.material.set(`${memoryId}/${keyRefString({ ...subject, generation })}`, null);
    }
  }

  async dropMemory(memoryId: string): Promise<void> {
    this.calls.push(`dropMemory ${memoryId}`);
    for (const slot of [...this.material.keys()]) if (slot.startsWith(`${memoryId}/`)) this.material.delete(slot);
  }
}

const ref = (id: string, generation = 0, kind: SubjectKind = 'entity'): KeyRef => ({ kind, id, generation });

describe('CachingKeyStore', () => {
  it('asks the inner store once per ref, only for the refs it has not cached', async () => {
    const inner = new RecordingStore();
    const store = new CachingKeyStore(inner);
    const first = await store.keys('m', [ref('a'), ref('b'), ref('a')], { create: true });
    const second = await store.keys('m', [ref('b'), ref('c'), ref('a')], { create: true });
    expect(inner.asked).toEqual(['m/entity:0:a', 'm/entity:0:b', 'm/entity:0:c']);
    expect(second.get('entity:0:a')).toEqual(first.get('entity:0:a'));
    expect(second.get('entity:0:b')).toEqual(first.get('entity:0:b'));
    expect([...second.keys()].sort()).toEqual(['entity:0:a', 'entity:0:b', 'entity:0:c']);
    await store.keys('m', [ref('a'), ref('b'), ref('c')], { create: false });
    expect(inner.calls).toHaveLength(2);
  });

  it('passes the inner store’s proposal on with the keys it has cached', async () => {
    const inner = new RecordingStore();
    const store = new CachingKeyStore(inner);
    const first = await store.keys('m', [ref('a')], { create: true });
    const proposals: ReadonlyMap<string, Buffer>[] = [];
    const answer = await store.keys('m', [ref('a'), ref('b')], { create: true, onProposed: (proposed) => proposals.push(proposed) });
    expect(inner.asked).toEqual(['m/entity:0:a', 'm/entity:0:b']);
    expect(proposals).toHaveLength(1);
    expect(proposals[0]!.get('entity:0:a')).toBe(first.get('entity:0:a'));
    expect(proposals[0]!.get('entity:0:b')).toBe(answer.get('entity:0:b'));
  });

  it('keeps memories apart, even ids that could run together', async () => {
    const inner = new RecordingStore();
    const store = new CachingKeyStore(inner);
    await store.keys('m', [ref('1:x')], { create: true });
    const other = await store.keys('m:1', [ref('x')], { create: true });
    expect(inner.asked).toEqual(['m/entity:0:1:x', 'm:1/entity:0:x']);
    expect(other.get('entity:0:x')).toEqual(inner.material.get('m:1/entity:0:x'));
  });

  it('caches null from a create (destroyed), but not from a read without create (maybe not created yet)', async () => {
    const inner = new RecordingStore();
    const store = new CachingKeyStore(inner);
    expect((await store.keys('m', [ref('a')], { create: false })).get('entity:0:a')).toBeNull();
    const created = (await store.keys('m', [ref('a')], { create: true })).get('entity:0:a');
    expect(created).toHaveLength(32);

    inner.material.set('m/entity:0:gone', null);
    expect((await store.keys('m', [ref('gone')], { create: true })).get('entity:0:gone')).toBeNull();
    expect((await store.keys('m', [ref('gone')], { create: true })).get('entity:0:gone')).toBeNull();
    expect(inner.asked).toEqual(['m/entity:0:a', 'm/entity:0:a', 'm/entity:0:gone']);
  });

  it('destroy passes through and drops the subject generations <= through, not later ones or other subjects', async () => {
    const inner = new RecordingStore();
    const store = new CachingKeyStore(inner);
    const refs = [ref('a', 0), ref('a', 1), ref('a', 2), ref('a', 1, 'fact'), ref('b', 1)];
    await store.keys('m', refs, { create: true });
    await store.keys('other', [ref('a', 1)], { create: true });
    inner.asked.length = 0;

    await store.destroy('m', { kind: 'entity', id: 'a' }, 1);
    expect(inner.calls).toContain('destroy m entity:a 1');
    const after = await store.keys('m', refs, { create: true });
    expect(inner.asked).toEqual(['m/entity:0:a', 'm/entity:1:a']);
    expect(after.get('entity:0:a')).toBeNull();
    expect(after.get('entity:1:a')).toBeNull();
    expect(after.get('entity:2:a')).toHaveLength(32);
    expect(after.get('fact:1:a')).toHaveLength(32);
    await store.keys('other', [ref('a', 1)], { create: true });
    expect(inner.asked).toHaveLength(2);
  });

  it('forget and forgetMemory only drop cache entries: the next read asks the inner store', async () => {
    const inner = new RecordingStore();
    const store = new CachingKeyStore(inner);
    await store.keys('m', [ref('a', 0), ref('a', 3), ref('b')], { create: true });
    await store.keys('n', [ref('a', 0)], { create: true });
    const callsBefore = inner.calls.length;
    inner.asked.length = 0;

    // another process destroyed entity a through 3
    inner.material.set('m/entity:0:a', null);
    inner.material.set('m/entity:3:a', null);
    expect((await store.keys('m', [ref('a', 3)], { create: true })).get('entity:3:a')).toHaveLength(32); // still cached
    store.forget('m', { kind: 'entity', id: 'a' }, 3);
    expect(inner.calls.slice(callsBefore).filter((call) => !call.startsWith('keys'))).toEqual([]);
    const after = await store.keys('m', [ref('a', 0), ref('a', 3), ref('b')], { create: true });
    expect(after.get('entity:0:a')).toBeNull();
    expect(after.get('entity:3:a')).toBeNull();
    expect(inner.asked).toEqual(['m/entity:0:a', 'm/entity:3:a']);

    store.forgetMemory('m');
    await store.keys('m', [ref('b')], { create: true });
    await store.keys('n', [ref('a', 0)], { create: true });
    expect(inner.asked).toEqual(['m/entity:0:a', 'm/entity:3:a', 'm/entity:0:b']);
    expect(inner.calls.some((call) => call.startsWith('dropMemory'))).toBe(false);
  });

  it('dropMemory passes through and forgets the memory', async () => {
    const inner = new RecordingStore();
    const store = new CachingKeyStore(inner);
    const before = (await store.keys('m', [ref('a')], { create: true })).get('entity:0:a');
    await store.dropMemory('m');
    expect(inner.calls).toContain('dropMemory m');
    const after = (await store.keys('m', [ref('a')], { create: true })).get('entity:0:a');
    expect(after).toHaveLength(32);
    expect(after).not.toEqual(before);
  });

  it('a lookup that overlapped a destroy does not cache what it read', async () => {
    const inner = new RecordingStore();
    const store = new CachingKeyStore(inner);
    let open!: () => void;
    inner.gate = new Promise((resolve) => (open = resolve));
    const reading = store.keys('m', [ref('a')], { create: true });
    await store.destroy('m', { kind: 'entity', id: 'a' }, 0);
    open();
    await reading;
    inner.gate = undefined;
    inner.asked.length = 0;
    expect((await store.keys('m', [ref('a')], { create: true })).get('entity:0:a')).toBeNull();
    expect(inner.asked).toEqual(['m/entity:0:a']);
  });

  it('is bounded: the least recently used entries go, and forgetting after eviction still works', async () => {
    const inner = new RecordingStore();
    const store = new CachingKeyStore(inner, { maxEntries: 3 });
    await store.keys('m', [ref('a'), ref('b'), ref('c')], { create: true });
    await store.keys('m', [ref('a')], { create: true }); // a is now the most recent
    await store.keys('m', [ref('d')], { create: true }); // b goes
    expect(store.size).toBe(3);
    inner.asked.length = 0;
    await store.keys('m', [ref('a'), ref('b'), ref('c'), ref('d')], { create: true });
    expect(inner.asked).toEqual(['m/entity:0:b']);
    store.forget('m', { kind: 'entity', id: 'c' }, 0);
    store.forgetMemory('m');
    expect(store.size).toBe(0);
  });
});
