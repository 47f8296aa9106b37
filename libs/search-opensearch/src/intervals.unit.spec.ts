import fc from 'fast-check';
import { type Interval, contains, intersect, normalize, union } from './intervals';

const t = (n: number) => new Date(Date.UTC(2024, 0, 1) + n * 1000).toISOString();
const iv = (from: number, to: number | null): Interval => ({ from: t(from), to: to === null ? null : t(to) });

const arbSet = fc.array(
  fc.tuple(fc.integer({ min: 0, max: 40 }), fc.option(fc.integer({ min: 0, max: 40 }), { nil: null })).map(([a, b]) => iv(a, b)),
  { maxLength: 5 },
);

describe('record-time interval sets', () => {
  it('normalize drops empty intervals and joins touching ones (half-open)', () => {
    expect(normalize([iv(5, 5), iv(3, 4), iv(0, 3), iv(6, null), iv(8, 9)])).toEqual([iv(0, 4), iv(6, null)]);
  });

  it('contains is half-open: from is in, to is out', () => {
    expect(contains([iv(1, 2)], t(1))).toBe(true);
    expect(contains([iv(1, 2)], t(2))).toBe(false);
    expect(contains([iv(1, null)], t(1000))).toBe(true);
  });

  it('intersect and union agree with membership at every instant', () => {
    fc.assert(
      fc.property(arbSet, arbSet, (a, b) => {
        const i = intersect(a, b);
        const u = union(a, b);
        for (let n = 0; n <= 42; n++) {
          const at = t(n);
          expect(contains(i, at)).toBe(contains(a, at) && contains(b, at));
          expect(contains(u, at)).toBe(contains(a, at) || contains(b, at));
        }
      }),
    );
  });
});
