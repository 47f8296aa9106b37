import { scoreFusion } from './fusion';

describe('scoreFusion', () => {
  it('sums weight x score / best score of the list over the lists', () => {
    const fused = scoreFusion([
      {
        hits: [
          { key: 'a', score: 8 },
          { key: 'b', score: 2 },
        ],
        weight: 1,
      },
      {
        hits: [
          { key: 'b', score: 0.5 },
          { key: 'c', score: 0.25 },
        ],
        weight: 0.4,
      },
    ]);
    expect(fused.get('a')).toBeCloseTo(1, 12);
    expect(fused.get('b')).toBeCloseTo(0.25 + 0.4, 12);
    expect(fused.get('c')).toBeCloseTo(0.2, 12);
  });

  it('an item second in both lists can outrank the best of each', () => {
    const fused = scoreFusion([
      {
        hits: [
          { key: 'x', score: 2 },
          { key: 'both', score: 1.5 },
        ],
        weight: 1,
      },
      {
        hits: [
          { key: 'y', score: 2 },
          { key: 'both', score: 1.5 },
        ],
        weight: 1,
      },
    ]);
    expect(fused.get('both')).toBeCloseTo(1.5, 12);
    expect(fused.get('x')).toBe(1);
    expect(fused.get('y')).toBe(1);
  });

  it('puts lists of any scale on one scale (BM25 and cosine mix), but keeps the gaps within a list', () => {
    const a = scoreFusion([
      {
        hits: [
          { key: 'a', score: 1000 },
          { key: 'b', score: 100 },
        ],
        weight: 1,
      },
    ]);
    const b = scoreFusion([
      {
        hits: [
          { key: 'a', score: 0.01 },
          { key: 'b', score: 0.001 },
        ],
        weight: 1,
      },
    ]);
    expect([...a]).toEqual([...b]);
    expect(a.get('b')).toBeCloseTo(0.1, 12);
  });

  it('keeps every hit, a score <= 0 adding nothing', () => {
    const fused = scoreFusion([
      {
        hits: [
          { key: 'a', score: 0.5 },
          { key: 'b', score: -0.2 },
        ],
        weight: 1,
      },
      { hits: [{ key: 'c', score: 0 }], weight: 1 },
    ]);
    expect([...fused]).toEqual([
      ['a', 1],
      ['b', 0],
      ['c', 0],
    ]);
  });

  it('measures a list from its floor: cosines in a narrow band far above 0 still spread from 0 to the weight', () => {
    const fused = scoreFusion([
      {
        hits: [
          { key: 'a', score: 0.9 },
          { key: 'b', score: 0.7 },
          { key: 'c', score: 0.45 },
        ],
        weight: 0.8,
        floor: 0.5,
      },
    ]);
    expect(fused.get('a')).toBeCloseTo(0.8, 12);
    expect(fused.get('b')).toBeCloseTo(0.4, 12);
    expect(fused.get('c')).toBe(0); // at or below the floor: nothing
    // Without a floor the same list barely separates its hits.
    expect(
      scoreFusion([
        {
          hits: [
            { key: 'a', score: 0.9 },
            { key: 'b', score: 0.7 },
          ],
          weight: 0.8,
        },
      ]).get('b'),
    ).toBeCloseTo((0.8 * 0.7) / 0.9, 12);
  });
});
