import { matchesFilter } from './value-filter';

describe('value filters', () => {
  const value = { kind: 'note', score: 4, tags: ['a', 'b'], meta: { lang: 'en', level: 2 }, at: '2024-05-01' };

  it('compares plain values, and objects and lists by content', () => {
    expect(matchesFilter(value, { kind: 'note' })).toBe(true);
    expect(matchesFilter(value, { kind: 'todo' })).toBe(false);
    expect(matchesFilter(value, { meta: { level: 2, lang: 'en' } })).toBe(true);
    expect(matchesFilter(value, { meta: { lang: 'en' } })).toBe(false);
    expect(matchesFilter(value, { tags: ['a', 'b'] })).toBe(true);
    expect(matchesFilter(value, { tags: ['b', 'a'] })).toBe(false);
    expect(matchesFilter(value, { missing: 'x' })).toBe(false);
    expect(matchesFilter(value, undefined)).toBe(true);
  });

  it('applies every operator given for a field', () => {
    expect(matchesFilter(value, { score: { $gt: 3, $lte: 4 } })).toBe(true);
    expect(matchesFilter(value, { score: { $gt: 4 } })).toBe(false);
    expect(matchesFilter(value, { score: { $gte: 4, $lt: 4 } })).toBe(false);
    expect(matchesFilter(value, { at: { $gte: '2024-01-01', $lt: '2025-01-01' } })).toBe(true);
    expect(matchesFilter(value, { score: { $gt: '3' } })).toBe(false); // a number and a string do not compare
    expect(matchesFilter(value, { kind: { $in: ['note', 'todo'] }, score: { $nin: [1, 2] } })).toBe(true);
    expect(matchesFilter(value, { kind: { $ne: 'note' } })).toBe(false);
    expect(matchesFilter(value, { meta: { $eq: { lang: 'en', level: 2 } } })).toBe(true);
  });
});
