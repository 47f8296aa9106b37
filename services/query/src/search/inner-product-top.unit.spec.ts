import { dot, normalize } from '@memotrace/search-index';
import fc from 'fast-check';
import { innerProductError, innerProductTop } from './inner-product-top';

describe('innerProductTop (the SIMD kernel)', () => {
  it('returns the rows with the largest inner products, best first, each within innerProductError of the exact product', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 300 }),
        fc.constantFrom(4, 96, 384, 512),
        fc.integer({ min: 1, max: 50 }),
        fc.boolean(),
        fc.nat(),
        (rows, dimension, count, unit, seed) => {
          let state = seed;
          const random = () => ((state = (state * 1103515245 + 12345) % 2147483648) / 2147483648) * 8 - 4;
          const vector = () =>
            unit ? normalize(Float32Array.from({ length: dimension }, random)) : Float32Array.from({ length: dimension }, random);
          const vectors = Array.from({ length: rows }, vector);
          const matrix = new Float32Array(rows * dimension);
          vectors.forEach((v, i) => matrix.set(v, i * dimension));
          const query = vector();
          const norm = (v: Float32Array) => Math.sqrt(dot(v, v));
          const error = innerProductError(dimension, norm(query) * Math.max(...vectors.map(norm)));
          const exact = vectors.map((v) => dot(query, v));
          const top = innerProductTop(matrix, rows, dimension, query, count);
          expect(top.rows.length).toBe(Math.min(count, rows));
          top.rows.forEach((row, j) => {
            expect(Math.abs(top.scores[j]! - exact[row]!)).toBeLessThanOrEqual(error);
            if (j > 0) expect(top.scores[j]!).toBeLessThanOrEqual(top.scores[j - 1]!);
          });
          // No row left out has an exact product above the last one taken, give or take the error.
          const taken = new Set(top.rows);
          const last = top.scores[top.scores.length - 1]!;
          exact.forEach((e, row) => taken.has(row) || expect(e).toBeLessThanOrEqual(last + error));
        },
      ),
      { numRuns: 200 },
    );
  });

  it('returns nothing for an empty matrix', () => {
    expect(innerProductTop(new Float32Array(0), 0, 4, new Float32Array(4), 3).rows).toHaveLength(0);
  });
});
