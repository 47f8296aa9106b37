/**
 * A bounded memo of a pure function of a string (oldest entry evicted first). Search
 * sees the same texts, words and relation names from one query to the next; analysing,
 * hashing or rendering them again each time is most of a search's CPU.
 */
export function memoize<T>(fn: (text: string) => T, maxEntries = 200_000): (text: string) => T {
  const memo = new Map<string, T>();
  return (text) => {
    let value = memo.get(text);
    if (value === undefined) {
      value = fn(text);
      if (memo.size >= maxEntries) memo.delete(memo.keys().next().value!);
      memo.set(text, value);
    }
    return value;
  };
}
