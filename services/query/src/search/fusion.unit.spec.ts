import { reciprocalRankFusion } from './fusion';

describe('reciprocalRankFusion', () => {
  it('sums weight / (k + rank) over the lists', () => {
    const fused = reciprocalRankFusion(
      [
        { hits: [{ key: 'a', score: 9 }, { key: 'b', score: 1 }], weight: 1 },
        { hits: [{ key: 'b', score: 0.9 }, { key: 'c', score: 0.5 }], weight: 2 },
      ],
      60,
    );
    expect(fused.get('a')).toBeCloseTo(1 / 61);
    expect(fused.get('b')).toBeCloseTo(1 / 62 + 2 / 61);
    expect(fused.get('c')).toBeCloseTo(2 / 62);
  });

  it('an item found by both lists outranks items found by one at the same ranks', () => {
    const fused = reciprocalRankFusion([
      { hits: [{ key: 'x', score: 1 }, { key: 'both', score: 1 }], weight: 1 },
      { hits: [{ key: 'y', score: 1 }, { key: 'both', score: 1 }], weight: 1 },
    ]);
    expect(fused.get('both')!).toBeGreaterThan(fused.get('x')!);
  });

  it('ignores the raw scores (scales of BM25 and cosine do not mix)', () => {
    const a = reciprocalRankFusion([{ hits: [{ key: 'a', score: 1000 }], weight: 1 }]);
    const b = reciprocalRankFusion([{ hits: [{ key: 'a', score: 0.001 }], weight: 1 }]);
    expect(a.get('a')).toBe(b.get('a'));
  });
});
