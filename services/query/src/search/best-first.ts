/**
 * The `limit` best of `indices` by score (highest first), ties in `tieOrder`. With many
 * hits, only those above the limit-th best score are sorted, and of those tied with it
 * only as many as fit are picked.
 */
export function bestFirst(indices: Int32Array, scores: Float64Array, limit: number, tieOrder: (a: number, b: number) => number): number[] {
  const byScore = (a: number, b: number) => scores[b]! - scores[a]! || tieOrder(a, b);
  if (indices.length <= limit) return Array.from(indices).sort(byScore);
  const values = new Float64Array(indices.length);
  for (let j = 0; j < indices.length; j++) values[j] = scores[indices[j]!]!;
  const threshold = kthLargest(values, limit);
  const above: number[] = [];
  const tied: number[] = [];
  for (const i of indices) {
    if (scores[i]! > threshold) above.push(i);
    else if (scores[i] === threshold) tied.push(i);
  }
  return [...above.sort(byScore), ...smallest(tied, limit - above.length, tieOrder)];
}

/** The `count` first of `items` in `order`, sorted (quickselect, then a sort of those). */
export function smallest(items: number[], count: number, order: (a: number, b: number) => number): number[] {
  let lo = 0;
  let hi = items.length - 1;
  while (lo < hi && count < items.length) {
    const pivot = items[(lo + hi) >> 1]!;
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (order(items[i]!, pivot) < 0) i++;
      while (order(items[j]!, pivot) > 0) j--;
      if (i <= j) {
        const t = items[i]!;
        items[i++] = items[j]!;
        items[j--] = t;
      }
    }
    if (count - 1 <= j) hi = j;
    else if (count - 1 >= i) lo = i;
    else break;
  }
  return items.slice(0, count).sort(order);
}

/** The k-th largest value (k from 1), by quickselect; reorders `values`. */
export function kthLargest(values: Float64Array, k: number): number {
  let lo = 0;
  let hi = values.length - 1;
  const target = k - 1;
  while (lo < hi) {
    const pivot = values[(lo + hi) >> 1]!;
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (values[i]! > pivot) i++;
      while (values[j]! < pivot) j--;
      if (i <= j) {
        const t = values[i]!;
        values[i++] = values[j]!;
        values[j--] = t;
      }
    }
    if (target <= j) hi = j;
    else if (target >= i) lo = i;
    else return values[target]!;
  }
  return values[target]!;
}
