import { coolsUnder, durationMs, salienceOf } from './salience';

const NOW = Date.parse('2024-07-01T00:00:00.000Z');
const DAY = 86_400_000;
const ago = (days: number) => new Date(NOW - days * DAY).toISOString();
const item = { assertedAt: ago(0), lastReturnedAt: null, returned: 0, confidence: null, links: 0 };

describe('salience', () => {
  it('is in [0, 1], highest for a fresh, retrieved, certain, connected item', () => {
    expect(salienceOf({ ...item, returned: 1000, links: 1000 }, NOW)).toBe(1);
    expect(salienceOf({ ...item, assertedAt: ago(100_000), confidence: 0 }, NOW)).toBe(0);
  });

  it('halves its recency every thirty days since it was last asserted or returned, whichever is later', () => {
    const fresh = salienceOf(item, NOW);
    const month = salienceOf({ ...item, assertedAt: ago(30) }, NOW);
    expect(fresh - month).toBeCloseTo(0.2, 4); // 0.4 of recency, halved
    expect(salienceOf({ ...item, assertedAt: ago(30), lastReturnedAt: ago(0) }, NOW)).toBe(fresh);
  });

  it('grows with retrievals, confidence and links', () => {
    const base = salienceOf(item, NOW);
    expect(salienceOf({ ...item, returned: 3 }, NOW)).toBeCloseTo(base + 0.1, 4);
    expect(salienceOf({ ...item, confidence: 0.5 }, NOW)).toBeCloseTo(base - 0.1, 4);
    expect(salienceOf({ ...item, links: 3 }, NOW)).toBeCloseTo(base + 0.1, 4);
  });
});

describe('coolsUnder', () => {
  const old = { assertedAt: ago(40), lastReturnedAt: null };
  it('cools an item idle for coldAfter with a salience below the floor; a condition given as null holds', () => {
    expect(coolsUnder({ coldAfter: 'P30D', salienceFloor: 0.5 }, old, 0.4, NOW)).toBe(true);
    expect(coolsUnder({ coldAfter: 'P30D', salienceFloor: 0.5 }, old, 0.5, NOW)).toBe(false);
    expect(coolsUnder({ coldAfter: 'P60D', salienceFloor: 0.5 }, old, 0.1, NOW)).toBe(false);
    expect(coolsUnder({ coldAfter: 'P30D', salienceFloor: 0.5 }, { ...old, lastReturnedAt: ago(1) }, 0.1, NOW)).toBe(false);
    expect(coolsUnder({ coldAfter: null, salienceFloor: 0.5 }, { ...old, assertedAt: ago(0) }, 0.1, NOW)).toBe(true);
    expect(coolsUnder({ coldAfter: 'P30D', salienceFloor: null }, old, 0.9, NOW)).toBe(true);
  });

  it('never cools without a policy, or with both conditions null', () => {
    expect(coolsUnder(null, old, 0, NOW)).toBe(false);
    expect(coolsUnder({ coldAfter: null, salienceFloor: null }, old, 0, NOW)).toBe(false);
  });
});

describe('durationMs', () => {
  it('reads ISO-8601 durations, years and months as 365 and 30 days', () => {
    expect(durationMs('PT0S')).toBe(0);
    expect(durationMs('P30D')).toBe(30 * DAY);
    expect(durationMs('P1Y2M1W1DT1H1M1S')).toBe((365 + 60 + 7 + 1) * DAY + 3_661_000);
    expect(durationMs('30 days')).toBeNull();
  });
});
