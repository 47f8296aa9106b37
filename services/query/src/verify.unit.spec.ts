import fc from 'fast-check';
import { evenSpread } from './verify';

describe('evenSpread (the validity bounds verify cuts at)', () => {
  it('keeps everything up to max, else max distinct items in order with the first and last', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 500 }), fc.integer({ min: 2, max: 120 }), (n, max) => {
        const sorted = Array.from({ length: n }, (_, i) => i);
        const picked = evenSpread(sorted, max);
        if (n <= max) return expect(picked).toEqual(sorted);
        expect(picked).toHaveLength(max);
        expect(picked[0]).toBe(0);
        expect(picked[max - 1]).toBe(n - 1);
        for (let i = 1; i < max; i++) expect(picked[i]!).toBeGreaterThan(picked[i - 1]!);
        // Evenly: no gap is more than one step wider than the ideal spacing.
        for (let i = 1; i < max; i++) expect(picked[i]! - picked[i - 1]!).toBeLessThanOrEqual(Math.ceil((n - 1) / (max - 1)) + 1);
      }),
    );
  });
});
