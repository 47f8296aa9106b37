import { LruMap } from './lru-map';

describe('LruMap', () => {
  it('evicts the least recently used entry past the bound, a read counting as use', () => {
    const evicted: string[] = [];
    const lru = new LruMap<string, number>(3, (key) => evicted.push(key));
    lru.set('a', 1);
    lru.set('b', 2);
    lru.set('c', 3);
    expect(lru.get('a')).toBe(1); // a is now the most recent: b goes first
    lru.set('d', 4);
    expect(evicted).toEqual(['b']);
    expect(lru.has('b')).toBe(false);
    lru.set('c', 30); // rewriting counts as use too
    lru.set('e', 5);
    expect(evicted).toEqual(['b', 'a']);
    expect(lru.size).toBe(3);
    expect([lru.get('c'), lru.get('d'), lru.get('e')]).toEqual([30, 4, 5]);
  });

  it('keeps null values apart from absent ones; delete does not report an eviction', () => {
    const evicted: string[] = [];
    const lru = new LruMap<string, number | null>(2, (key) => evicted.push(key));
    lru.set('x', null);
    expect(lru.has('x')).toBe(true);
    expect(lru.get('x')).toBeNull();
    expect(lru.get('y')).toBeUndefined();
    expect(lru.delete('x')).toBe(true);
    expect(lru.size).toBe(0);
    expect(evicted).toEqual([]);
    expect(() => new LruMap(0)).toThrow(/positive integer/);
  });

  it('bounds the total weight: the oldest entries go until the rest fit; one entry heavier than the bound stays alone', () => {
    const evicted: string[] = [];
    const lru = new LruMap<string, number>(
      10,
      (key) => evicted.push(key),
      (value) => value,
    );
    lru.set('a', 4);
    lru.set('b', 4);
    expect(lru.weight).toBe(8);
    lru.set('c', 5);
    expect(evicted).toEqual(['a']);
    expect(lru.weight).toBe(9);
    lru.set('b', 1); // rewritten: its old weight goes
    expect(lru.weight).toBe(6);
    lru.set('huge', 20);
    expect(evicted).toEqual(['a', 'c', 'b']);
    expect([lru.size, lru.weight]).toEqual([1, 20]);
    lru.delete('huge');
    expect([lru.size, lru.weight]).toEqual([0, 0]);
  });
});
