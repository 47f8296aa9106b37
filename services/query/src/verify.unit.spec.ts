import fc from 'fast-check';
import { differingItems, evenSpread } from './verify';

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

describe('differingItems (what a verify difference carries)', () => {
  const fact = (factId: string, dst = 'acme') => ({ factId, src: 'alice', rel: 'works_at', dst });
  const many = Array.from({ length: 1_000 }, (_, i) => fact(`f${String(i).padStart(4, '0')}`));

  it('keeps only the items of two listings that differ, matched by id', () => {
    const projection = many.map((f) => (f.factId === 'f0500' ? fact('f0500', 'beta') : f));
    expect(differingItems(projection, many)).toEqual({ projection: [fact('f0500', 'beta')], replay: [fact('f0500')] });
  });

  it('shows an item missing on one side as nothing there', () => {
    expect(differingItems(many.slice(1), many)).toEqual({ projection: [], replay: [many[0]] });
    expect(differingItems([{ eventId: 'e1', summary: 's' }], [])).toEqual({ projection: [{ eventId: 'e1', summary: 's' }], replay: [] });
  });

  it('keeps whole answers when the items are the same in another order, or the answer is no listing by id', () => {
    const reversed = [...many].reverse();
    expect(differingItems(reversed, many)).toEqual({ projection: reversed, replay: many });
    const history = [fact('f1'), fact('f1', 'beta')]; // one fact's versions: the id is not unique
    expect(differingItems(history, [fact('f1')])).toEqual({ projection: history, replay: [fact('f1')] });
    expect(differingItems({ entityId: 'a', names: ['A'] }, { entityId: 'a', names: ['B'] })).toEqual({
      projection: { entityId: 'a', names: ['A'] },
      replay: { entityId: 'a', names: ['B'] },
    });
  });
});
