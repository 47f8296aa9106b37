/**
 * A Map bounded to `maxEntries`: reading or writing an entry makes it the most recent, and
 * the least recently used entries go when the bound is passed (`onEvict` hears of each).
 * A Map iterates in insertion order, so re-inserting on use keeps the oldest first.
 */
export class LruMap<K, V> {
  private readonly entries = new Map<K, V>();

  constructor(
    readonly maxEntries: number,
    private readonly onEvict?: (key: K, value: V) => void,
  ) {
    if (!Number.isInteger(maxEntries) || maxEntries < 1) throw new RangeError(`LruMap: maxEntries must be a positive integer, got ${maxEntries}`);
  }

  get size(): number {
    return this.entries.size;
  }

  has(key: K): boolean {
    return this.entries.has(key);
  }

  /** The value, made most recent; undefined when absent. */
  get(key: K): V | undefined {
    if (!this.entries.has(key)) return undefined;
    const value = this.entries.get(key) as V;
    this.entries.delete(key);
    this.entries.set(key, value);
    return value;
  }

  set(key: K, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    while (this.entries.size > this.maxEntries) {
      const [oldestKey, oldestValue] = this.entries.entries().next().value as [K, V];
      this.entries.delete(oldestKey);
      this.onEvict?.(oldestKey, oldestValue);
    }
  }

  delete(key: K): boolean {
    return this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }
}
