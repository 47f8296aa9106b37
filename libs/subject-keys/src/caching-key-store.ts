import { LruMap } from './lru-map';
import { type KeyRef, type KeysOptions, type SubjectKeyStore, type SubjectKind, keyRefString } from './subject-key-store';

export interface CachingKeyStoreOptions {
  /** Most (memory, ref) entries kept; the least recently used go first. Default 100,000. */
  maxEntries?: number;
}

interface CacheEntry {
  memoryId: string;
  subject: string;
  generation: number;
  key: Buffer | null;
}

/**
 * Keeps the answers of another store per memory and ref: key material, and null for a key known
 * to be destroyed. A batch asks for the same few refs over and over; only refs not cached reach
 * the inner store. A null from a read without `create` is not kept: it may only mean "not yet created".
 */
export class CachingKeyStore implements SubjectKeyStore {
  private readonly cache: LruMap<string, CacheEntry>;
  // memory → subject → generations cached, so forgetting a subject or memory needs no scan of the cache.
  private readonly index = new Map<string, Map<string, Set<number>>>();
  // Bumped by every invalidation: a lookup that overlapped one does not cache what it read.
  private invalidations = 0;

  constructor(
    private readonly inner: SubjectKeyStore,
    options: CachingKeyStoreOptions = {},
  ) {
    this.cache = new LruMap(options.maxEntries ?? 100_000, (_, entry) => this.unindex(entry));
  }

  /** Entries cached now. */
  get size(): number {
    return this.cache.size;
  }

  async keys(memoryId: string, refs: readonly KeyRef[], options: KeysOptions): Promise<Map<string, Buffer | null>> {
    const found = new Map<string, Buffer | null>();
    const missing = new Map<string, KeyRef>();
    for (const ref of refs) {
      const refString = keyRefString(ref);
      if (found.has(refString) || missing.has(refString)) continue;
      const entry = this.cache.get(cacheKey(memoryId, refString));
      if (entry) found.set(refString, entry.key);
      else missing.set(refString, ref);
    }
    if (missing.size === 0) return found;

    const invalidationsBefore = this.invalidations;
    const { onProposed } = options;
    const fetched = await this.inner.keys(memoryId, [...missing.values()], {
      create: options.create,
      // The inner store's proposal completed with the keys cached here.
      ...(onProposed && {
        onProposed: (proposed: ReadonlyMap<string, Buffer>) => {
          const all = new Map(proposed);
          for (const [refString, key] of found) if (key !== null) all.set(refString, key);
          onProposed(all);
        },
      }),
    });
    const cacheable = this.invalidations === invalidationsBefore;
    for (const [refString, ref] of missing) {
      const key = fetched.get(refString) ?? null;
      found.set(refString, key);
      if (cacheable && (key !== null || options.create)) this.remember(memoryId, ref, refString, key);
    }
    return found;
  }

  async destroy(memoryId: string, subject: { kind: SubjectKind; id: string }, throughGeneration: number): Promise<void> {
    try {
      await this.inner.destroy(memoryId, subject, throughGeneration);
    } finally {
      this.forget(memoryId, subject, throughGeneration);
    }
  }

  async dropMemory(memoryId: string): Promise<void> {
    try {
      await this.inner.dropMemory(memoryId);
    } finally {
      this.forgetMemory(memoryId);
    }
  }

  /** Drops the cached keys of the subject's generations <= throughGeneration (destroyed by another process). */
  forget(memoryId: string, subject: { kind: SubjectKind; id: string }, throughGeneration: number): void {
    this.invalidations++;
    const subjects = this.index.get(memoryId);
    const subjectKey = subjectOf(subject.kind, subject.id);
    const generations = subjects?.get(subjectKey);
    if (!subjects || !generations) return;
    for (const generation of [...generations]) {
      if (generation > throughGeneration) continue;
      generations.delete(generation);
      this.cache.delete(cacheKey(memoryId, keyRefString({ kind: subject.kind, id: subject.id, generation })));
    }
    if (generations.size === 0) subjects.delete(subjectKey);
    if (subjects.size === 0) this.index.delete(memoryId);
  }

  /** Drops every cached key of the memory (dropped by another process). */
  forgetMemory(memoryId: string): void {
    this.invalidations++;
    const subjects = this.index.get(memoryId);
    if (!subjects) return;
    this.index.delete(memoryId);
    for (const [subjectKey, generations] of subjects) {
      const [kind, id] = splitSubject(subjectKey);
      for (const generation of generations) this.cache.delete(cacheKey(memoryId, keyRefString({ kind, id, generation })));
    }
  }

  private remember(memoryId: string, ref: KeyRef, refString: string, key: Buffer | null): void {
    const subject = subjectOf(ref.kind, ref.id);
    this.cache.set(cacheKey(memoryId, refString), { memoryId, subject, generation: ref.generation, key });
    let subjects = this.index.get(memoryId);
    if (!subjects) this.index.set(memoryId, (subjects = new Map()));
    let generations = subjects.get(subject);
    if (!generations) subjects.set(subject, (generations = new Set()));
    generations.add(ref.generation);
  }

  private unindex(entry: CacheEntry): void {
    const subjects = this.index.get(entry.memoryId);
    const generations = subjects?.get(entry.subject);
    if (!subjects || !generations) return;
    generations.delete(entry.generation);
    if (generations.size === 0) subjects.delete(entry.subject);
    if (subjects.size === 0) this.index.delete(entry.memoryId);
  }
}

// The memory id is length-prefixed so no memory id and ref can run into another pair.
const cacheKey = (memoryId: string, refString: string): string => `${memoryId.length}:${memoryId}:${refString}`;
// The kind has no ':', so the first ':' separates it from the id.
const subjectOf = (kind: SubjectKind, id: string): string => `${kind}:${id}`;
const splitSubject = (subject: string): [SubjectKind, string] => {
  const colon = subject.indexOf(':');
  return [subject.slice(0, colon) as SubjectKind, subject.slice(colon + 1)];
};
