import fc from 'fast-check';
import pg from 'pg';
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

  it('parses text[] exactly as pg does, through its fast path or not', () => {
    const reference = (pg.types.getTypeParser as (oid: number, format: 'text') => (value: string) => unknown)(1009, 'text');
    expect(parse(1009, '{}')).toEqual([]);
    expect(parse(1009, '{fact:m:f1,NULL,Nullx}')).toEqual(['fact:m:f1', null, 'Nullx']);
    expect(parse(1009, '{"a,b","",NULL,"NULL","x\\"y"}')).toEqual(['a,b', '', null, 'NULL', 'x"y']);
    const element = fc.oneof(fc.constantFrom('NULL', 'null', '""', 'fact:m:f1'), fc.stringMatching(/^[a-zN:,"\\{} ]{0,6}$/));
    fc.assert(
      fc.property(fc.array(element, { maxLength: 5 }), (elements) => {
        const text = `{${elements.join(',')}}`;
        let expected: unknown;
        try {
          expected = reference(text);
        } catch {
          return; // not array text pg could have sent
        }
        expect(parse(1009, text)).toEqual(expected);
      }),
      { numRuns: 2000 },
    );
  });

  it('keeps the default parsing of other types', () => {
    expect(parse(23, '7')).toBe(7);
    expect(parse(1184, '2025-01-02 03:04:05.678+00')).toEqual(new Date('2025-01-02T03:04:05.678Z'));
  });
});
