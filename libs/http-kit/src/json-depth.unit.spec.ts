import { nestsDeeperThan } from './json-depth';

function nested(levels: number): unknown {
  let value: unknown = 'leaf';
  for (let i = 0; i < levels; i++) value = i % 2 === 0 ? [value] : { k: value };
  return value;
}

describe('nestsDeeperThan', () => {
  it('counts the top level as 1 and is exact at the limit', () => {
    expect(nestsDeeperThan('scalar', 1)).toBe(false);
    expect(nestsDeeperThan({}, 1)).toBe(false);
    expect(nestsDeeperThan(nested(32), 32)).toBe(false);
    expect(nestsDeeperThan(nested(33), 32)).toBe(true);
  });

  it('finds the deep branch among shallow siblings', () => {
    expect(nestsDeeperThan({ a: 1, b: [1, 2], c: { d: nested(40) } }, 32)).toBe(true);
  });

  it('handles a million levels without overflowing the stack', () => {
    expect(nestsDeeperThan(nested(1_000_000), 32)).toBe(true);
  });
});
