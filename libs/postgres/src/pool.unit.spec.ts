import { memotraceTypes } from './pool';

describe('memotraceTypes', () => {
  const parse = (oid: number, value: string) => (memotraceTypes.getTypeParser as (oid: number) => (value: string) => unknown)(oid)(value);

  it('parses int8 and int8[] as numbers', () => {
    expect(parse(20, '9007199254740991')).toBe(9007199254740991);
    expect(parse(1016, '{1,NULL,42}')).toEqual([1, null, 42]);
  });

  it('refuses int8 values that do not fit a JS number', () => {
    expect(() => parse(20, '9007199254740993')).toThrow(RangeError);
  });

  it('keeps the default parsing of other types', () => {
    expect(parse(23, '7')).toBe(7);
    expect(parse(1184, '2025-01-02 03:04:05.678+00')).toEqual(new Date('2025-01-02T03:04:05.678Z'));
  });
});
