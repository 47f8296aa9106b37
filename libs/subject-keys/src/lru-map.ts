/**
 * A Map bounded to a total weight (`weigh`, one per entry unless given): reading or writing an
 * entry makes it the most recent, and the least recently used entries go when the bound is passed
 * (`onEvict` hears of each); an entry heavier than the bound alone is kept until the next write.
 * A Map iterates in insertion order, so re-inserting on use keeps the oldest first.
 */
export class LruMap<K, V> {
  private readonly entries = new Map<K, V>();
  private total = 0;

  constructor(
    readonly maxWeight: number,
    private readonly onEvict?: (key: K, value: V) => void,
    private readonly weigh: (value: V) => number = () => 1,
  ) {
    if (!Number.isInteger(maxWeight) || maxWeight < 1) throw new RangeError(`LruMap: maxWeight must be a positive integer, got ${maxWeight}`);
  }

  get size(): number {
    return this.entries.size;
  }

  /** The weight of the entries held. */
  get weight(): number {
    return this.total;
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
    this.delete(key);
    this.entries.set(key, value);
    this.total += this.weigh(value);
    while (this.total > this.maxWeight && this.entries.size > 1) {
      const [oldestKey, oldestValue] = this.entries.entries().next().value as [K, V];
      this.delete(oldestKey);
      this.onEvict?.(oldestKey, oldestValue);
    }
  }

  delete(key: K): boolean {
    if (!this.entries.has(key)) return false;
    this.total -= this.weigh(this.entries.get(key) as V);
    return this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
    this.total = 0;
  }
}
