import fc from 'fast-check';
import { MAX_TEMPORAL_QUERY, itemInterval, overlaps, parseTemporalIntent, relativeAnchor } from './temporal-intent';

// Wednesday 14 June 2023, noon UTC: the cut's reference time.
const REF = new Date('2023-06-14T12:00:00.000Z');
const day = (iso: string) => Date.parse(`${iso}T00:00:00.000Z`);

function interval(query: string) {
  const intent = parseTemporalIntent(query, REF);
  if (intent?.kind !== 'interval') throw new Error(`no interval for ${query}`);
  return intent.interval;
}

describe('parseTemporalIntent', () => {
  it('"last weekend" is the Saturday and Sunday before the reference', () => {
    expect(interval('what did Mel do last weekend?')).toEqual({ from: day('2023-06-10'), to: day('2023-06-12') });
  });

  it('"in May 2023" is the whole month', () => {
    expect(interval('where did she travel in May 2023')).toEqual({ from: day('2023-05-01'), to: day('2023-06-01') });
  });

  it('"two weeks ago" is the day two weeks back, widened by three days each side', () => {
    expect(interval('what happened two weeks ago')).toEqual({ from: day('2023-05-28'), to: day('2023-06-04') });
  });

  it('"yesterday" is one day', () => {
    expect(interval('who called yesterday')).toEqual({ from: day('2023-06-13'), to: day('2023-06-14') });
  });

  it('a month without a year after the reference is last year’s', () => {
    expect(interval('the camping trip in July')).toEqual({ from: day('2022-07-01'), to: day('2022-08-01') });
  });

  it('a bare year is the whole year', () => {
    expect(interval('what did she adopt in 2022')).toEqual({ from: day('2022-01-01'), to: day('2023-01-01') });
  });

  it('"before"/"after" a date open the interval on that side', () => {
    expect(interval('jobs before June 2023')).toEqual({ from: Number.NEGATIVE_INFINITY, to: day('2023-06-01') });
    expect(interval('jobs after May 2023')).toEqual({ from: day('2023-06-01'), to: Number.POSITIVE_INFINITY });
  });

  it('"before <event in words>" leaves the anchor to resolve against the items', () => {
    expect(parseTemporalIntent('where did Alice work before she moved to Berlin?', REF)).toEqual({
      kind: 'relative',
      relation: 'before',
      anchor: 'she moved to Berlin',
    });
  });

  it('finds "before/after <anchor>" as the regular expression it replaced did, on any text', () => {
    // The replaced expression, fine on short texts (it backtracks cubically on long runs of spaces and ?.!).
    const byRegex = (query: string) => {
      const match = /\b(before|after)\s+(.+?)[?.!]*$/i.exec(query);
      return match && /[\p{L}\p{N}]/u.test(match[2]!) ? { kind: 'relative', relation: match[1]!.toLowerCase(), anchor: match[2]! } : null;
    };
    const piece = fc.constantFrom('before', 'After', 'xbefore', ' ', '  ', '\n', '\r\n', '?', '.', '!', 'she', 'moved', '2', '\u2028', '\t');
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 12 }), (pieces) => expect(relativeAnchor(pieces.join(''))).toEqual(byRegex(pieces.join('')))),
      { numRuns: 2_000 },
    );
  });

  it('reads a long query in linear time: runs of spaces and ?.! a 64 KiB query may hold', () => {
    const long = `before${' '.repeat(32_000)}${'?'.repeat(32_000)}\n`;
    expect(relativeAnchor(long)).toBeNull();
    expect(relativeAnchor(`before ${'?'.repeat(65_000)}x`)).toEqual({ kind: 'relative', relation: 'before', anchor: `${'?'.repeat(65_000)}x` });
    expect(parseTemporalIntent(`${'x '.repeat(MAX_TEMPORAL_QUERY)}in 2022`, REF)).toBeNull(); // past what is read
  });

  it('a query without a time expression has no intent', () => {
    expect(parseTemporalIntent('where does Alice work', REF)).toBeNull();
  });
});

describe('itemInterval / overlaps', () => {
  it('a mention is the instant it occurred; a fact or event its validity, open to the future when unbounded', () => {
    expect(itemInterval({ kind: 'mention', occurredAt: '2023-06-10T09:00:00.000Z' })).toEqual({
      from: Date.parse('2023-06-10T09:00:00.000Z'),
      to: Date.parse('2023-06-10T09:00:00.000Z') + 1,
    });
    expect(itemInterval({ kind: 'fact', validFrom: '2023-01-01T00:00:00.000Z', validTo: null })).toEqual({
      from: day('2023-01-01'),
      to: Number.POSITIVE_INFINITY,
    });
    expect(itemInterval({ kind: 'mention' })).toBeNull();
  });

  it('half-open intervals overlap only when they share time', () => {
    expect(overlaps({ from: 0, to: 10 }, { from: 9, to: 20 })).toBe(true);
    expect(overlaps({ from: 0, to: 10 }, { from: 10, to: 20 })).toBe(false);
  });
});
