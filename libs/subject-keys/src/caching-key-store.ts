import { LruMap } from './lru-map';
import type { KeyRef, KeySet, NewKeySet, SubjectErasure, SubjectKeyStore, Transaction } from './subject-key-store';

export interface CachingKeyStoreOptions {
  /** Most keys kept, over all cached key sets; the least recently used sets go first. Default 1,000,000 (32 MB). */
  maxKeys?: number;
  /** Most erasures remembered as done. Default 100,000. */
  maxErasures?: number;
}

/**
 * Another store with what this process read and did kept: key sets by memory and id, and the
 * erasures it destroyed or confirmed, so a reader meeting an erasure again in the log writes
 * nothing. Destroying or confirming drops the memory's cached key sets (another process may have
 * destroyed keys this one holds), and a read that overlapped that is not kept. Keys of the first
 * stored format are not cached: only the log's earliest records name them.
 */
export class CachingKeyStore implements SubjectKeyStore {
  private readonly sets: MemoryLru<KeySet>;
  // The generation each subject's keys are known destroyed through.
  private readonly done: MemoryLru<number>;
  // Bumped by every invalidation: a read that overlapped one does not cache what it read.
  private invalidations = 0;

  constructor(
    private readonly inner: SubjectKeyStore,
    options: CachingKeyStoreOptions = {},
  ) {
    this.sets = new MemoryLru(options.maxKeys ?? 1_000_000, (set) => Math.max(set.size, 1));
    this.done = new MemoryLru(options.maxErasures ?? 100_000);
  }

  /** Key sets cached now. */
  get size(): number {
    return this.sets.size;
  }

  newKeys(count: number): { keys: Buffer; seeds: Buffer } {
    return this.inner.newKeys(count);
  }

  writeKeySet(memoryId: string, keySet: NewKeySet, tx: Transaction): Promise<void> {
    return this.inner.writeKeySet(memoryId, keySet, tx);
  }

  async keySets(memoryId: string, ids: readonly number[]): Promise<Map<number, KeySet>> {
    const found = new Map<number, KeySet>();
    const missing = new Set<number>();
    for (const id of ids) {
      if (found.has(id) || missing.has(id)) continue;
      const set = this.sets.get(memoryId, String(id));
      if (set) found.set(id, set);
      else missing.add(id);
    }
    if (missing.size === 0) return found;
    const invalidationsBefore = this.invalidations;
    const fetched = await this.inner.keySets(memoryId, [...missing]);
    const cacheable = this.invalidations === invalidationsBefore;
    for (const [id, set] of fetched) {
      found.set(id, set);
      if (cacheable) this.sets.set(memoryId, String(id), set);
    }
    return found;
  }

  legacyKeys(memoryId: string, refs: readonly KeyRef[]): Promise<Map<string, Buffer | null>> {
    return this.inner.legacyKeys(memoryId, refs);
  }

  destroy(memoryId: string, erasures: readonly SubjectErasure[]): Promise<void> {
    return this.learn(memoryId, erasures, () => this.inner.destroy(memoryId, erasures));
  }

  confirmDestroyed(memoryId: string, erasures: readonly SubjectErasure[]): Promise<void> {
    const unknown = erasures.filter((e) => (this.done.get(memoryId, subjectOf(e)) ?? -1) < e.throughGeneration);
    return this.learn(memoryId, unknown, () => this.inner.confirmDestroyed(memoryId, unknown));
  }

  /** Drops what is kept of the memory (deleted, here or by another process). */
  forgetMemory(memoryId: string): void {
    this.forgetKeySets(memoryId);
    this.done.deleteMemory(memoryId);
  }

  private forgetKeySets(memoryId: string): void {
    this.invalidations++;
    this.sets.deleteMemory(memoryId);
  }

  /** Runs the inner store's destroy of these erasures; then no key set of the memory is kept, and the erasures are known done. */
  private async learn(memoryId: string, erasures: readonly SubjectErasure[], destroy: () => Promise<void>): Promise<void> {
    if (erasures.length === 0) return;
    try {
      await destroy();
    } finally {
      this.forgetKeySets(memoryId);
    }
    this.remember(memoryId, erasures);
  }

  private remember(memoryId: string, erasures: readonly SubjectErasure[]): void {
    for (const erasure of erasures) {
      const subject = subjectOf(erasure);
      if ((this.done.get(memoryId, subject) ?? -1) < erasure.throughGeneration) this.done.set(memoryId, subject, erasure.throughGeneration);
    }
  }
}

// The kind has no ':', so no two subjects share a string.
const subjectOf = (erasure: SubjectErasure): string => `${erasure.subject.kind}:${erasure.subject.id}`;

/** An LruMap of values by memory and key, which can drop a memory's values at once. */
class MemoryLru<V> {
  private readonly lru: LruMap<string, { memoryId: string; key: string; value: V }>;
  private readonly keysOfMemory = new Map<string, Set<string>>();

  constructor(maxWeight: number, weigh: (value: V) => number = () => 1) {
    this.lru = new LruMap(
      maxWeight,
      (_, entry) => this.unindex(entry.memoryId, entry.key),
      (entry) => weigh(entry.value),
    );
  }

  get size(): number {
    return this.lru.size;
  }

  /** The value, made most recent. */
  get(memoryId: string, key: string): V | undefined {
    return this.lru.get(lruKey(memoryId, key))?.value;
  }

  set(memoryId: string, key: string, value: V): void {
    let keys = this.keysOfMemory.get(memoryId);
    if (!keys) this.keysOfMemory.set(memoryId, (keys = new Set()));
    keys.add(key);
    this.lru.set(lruKey(memoryId, key), { memoryId, key, value });
  }

  deleteMemory(memoryId: string): void {
    const keys = this.keysOfMemory.get(memoryId);
    if (!keys) return;
    this.keysOfMemory.delete(memoryId);
    for (const key of keys) this.lru.delete(lruKey(memoryId, key));
  }

  private unindex(memoryId: string, key: string): void {
    const keys = this.keysOfMemory.get(memoryId);
    keys?.delete(key);
    if (keys?.size === 0) this.keysOfMemory.delete(memoryId);
  }
}

// The memory id is length-prefixed so no memory id and key can run into another pair.
const lruKey = (memoryId: string, key: string): string => `${memoryId.length}:${memoryId}:${key}`;
