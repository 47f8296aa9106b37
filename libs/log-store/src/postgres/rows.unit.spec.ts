import { READ_ALL_PAGE, assertAscending } from './rows';

describe('log page order', () => {
  it('accepts strictly ascending positions after the page start and rejects anything else', () => {
    expect(() => assertAscending(0, 1)).not.toThrow();
    expect(() => assertAscending(41, 42)).not.toThrow();
    expect(() => assertAscending(42, 42)).toThrow('log page out of order: position 42 after 42');
    expect(() => assertAscending(42, 7)).toThrow(/out of order/);
  });

  it('orders the page inside the lateral join only (an outer sort spilled large pages to disk)', () => {
    expect(READ_ALL_PAGE).toMatch(/ORDER BY e\.position\s+LIMIT \$2\s+\) e ON true$/);
  });
});
