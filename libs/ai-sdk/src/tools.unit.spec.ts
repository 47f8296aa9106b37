import { relationId } from './tools';

describe('relation ids', () => {
  it('spells a relation one way, whatever the model wrote', () => {
    expect(relationId('works at')).toBe('works_at');
    expect(relationId(' Works-At ')).toBe('works_at');
    expect(relationId('lives_in')).toBe('lives_in');
    expect(relationId('Geburtsort (Stadt)')).toBe('geburtsort_stadt');
    expect(() => relationId(' -- ')).toThrow(/no letters or digits/);
  });
});
