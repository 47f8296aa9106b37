import { availableParallelism } from 'node:os';
import { type Matches, MetricKind, exactSearch } from 'usearch';

/**
 * The scan is bound by memory bandwidth: a second thread shortens it; more would only take
 * cores from other requests.
 */
const SCAN_THREADS = Math.min(2, availableParallelism());

/**
 * The `count` rows of `matrix` (`rows` x `dimension`, row-major) with the largest inner
 * product with `query`, best first, by USearch's exact (brute-force) SIMD kernel, far faster
 * than the same products in JavaScript. Its scores are float32 sums (off by up to `innerProductError`), for choosing rows, not
 * for ranking them.
 */
export function innerProductTop(
  matrix: Float32Array,
  rows: number,
  dimension: number,
  query: Float32Array,
  count: number,
): { rows: Int32Array; scores: Float32Array } {
  const wanted = Math.min(count, rows);
  if (wanted <= 0) return { rows: new Int32Array(0), scores: new Float32Array(0) };
  const matches = exactSearch(matrix.subarray(0, rows * dimension), query, dimension, wanted, MetricKind.IP, SCAN_THREADS) as Matches;
  const found = Math.min(wanted, matches.keys.length);
  const top = { rows: new Int32Array(found), scores: new Float32Array(found) };
  for (let j = 0; j < found; j++) {
    top.rows[j] = Number(matches.keys[j]);
    top.scores[j] = 1 - matches.distances[j]!; // USearch's IP distance is 1 - a.b
  }
  return top;
}

/**
 * A bound on how far a float32 SIMD inner product of `dimension` terms can be from the exact
 * one, for vectors whose norms multiply to `norms`: each of the `dimension` products and
 * additions rounds by at most half an ulp of a value no larger than `norms` (Cauchy-Schwarz),
 * plus the rounding of the distance `1 - a.b`; doubled for safety.
 */
export function innerProductError(dimension: number, norms: number): number {
  return dimension * 2 ** -23 * norms + 2 ** -22;
}
