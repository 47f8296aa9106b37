import fc from 'fast-check';
import { codePointLength, id, instant, instantOrStar, memoryId, nonBlankText, parseInstant, text, utf8ByteLength } from './primitives';

describe('instant', () => {
  it.each([
    ['2024-05-01T09:30:00Z', '2024-05-01T09:30:00.000Z'],
    ['2024-05-01T11:30:00+02:00', '2024-05-01T09:30:00.000Z'],
    ['2024-05-01T05:00:00-04:30', '2024-05-01T09:30:00.000Z'],
    ['2024-05-01T09:30:00.5Z', '2024-05-01T09:30:00.500Z'],
    ['2024-05-01T09:30:00.25Z', '2024-05-01T09:30:00.250Z'],
    ['2024-05-01T09:30:00.123+00:00', '2024-05-01T09:30:00.123Z'],
    ['2024-05-01T00:30:00+01:00', '2024-04-30T23:30:00.000Z'],
    ['2024-02-29T12:00:00Z', '2024-02-29T12:00:00.000Z'],
    ['2000-02-29T12:00:00Z', '2000-02-29T12:00:00.000Z'],
    ['0000-01-01T00:00:00Z', '0000-01-01T00:00:00.000Z'],
    ['0099-03-01T00:00:00Z', '0099-03-01T00:00:00.000Z'],
    ['9999-12-31T23:59:59.999Z', '9999-12-31T23:59:59.999Z'],
  ])('accepts %s as %s', (input, canonical) => {
    expect(instant.parse(input)).toBe(canonical);
  });

  it.each([
    ['no offset', '2024-05-01T09:30:00'],
    ['4 fraction digits', '2024-05-01T09:30:00.1234Z'],
    ['9 fraction digits', '2024-05-01T09:30:00.123456789Z'],
    ['date only', '2024-05-01'],
    ['no seconds', '2024-05-01T09:30Z'],
    ['invalid calendar date', '2024-02-30T00:00:00Z'],
    ['Feb 29 in a non-leap year', '2023-02-29T00:00:00Z'],
    ['Feb 29 in 1900', '1900-02-29T00:00:00Z'],
    ['month 13', '2024-13-01T00:00:00Z'],
    ['day 0', '2024-01-00T00:00:00Z'],
    ['hour 24', '2024-01-01T24:00:00Z'],
    ['leap second', '2024-01-01T23:59:60Z'],
    ['offset without colon', '2024-05-01T09:30:00+0200'],
    ['offset hour 24', '2024-05-01T09:30:00+24:00'],
    ['lowercase z', '2024-05-01T09:30:00z'],
    ['space separator', '2024-05-01 09:30:00Z'],
    ['5-digit year', '10000-01-01T00:00:00Z'],
    ['signed year', '+002024-05-01T09:30:00Z'],
    ['before year 0000 after offset', '0000-01-01T00:30:00+01:00'],
    ['after year 9999 after offset', '9999-12-31T23:30:00-01:00'],
    ['garbage', 'yesterday'],
    ['empty', ''],
    ['epoch millis as string', '1714555800000'],
    ['a dot without fraction digits', '2024-05-01T09:30:00.Z'],
    ['offset minutes cut short', '2024-05-01T09:30:00+02:0'],
    ['offset minutes too long', '2024-05-01T09:30:00+02:000'],
    ['text after Z', '2024-05-01T09:30:00Zx'],
    ['text after the offset', '2024-05-01T09:30:00+02:00Z'],
    ['non-ASCII digits', '٢٠٢٤-05-01T09:30:00Z'],
    ['a letter in the minutes', '2024-05-01T09:3a:00Z'],
    ['a sign in the year', '-024-05-01T09:30:00Z'],
    ['a slash for a dash', '2024/05-01T09:30:00Z'],
  ])('rejects %s', (_label, input) => {
    expect(instant.safeParse(input).success).toBe(false);
  });

  it.each([[1714555800000], [null], [{}], [undefined]])('rejects non-string %p', (input) => {
    expect(instant.safeParse(input).success).toBe(false);
  });

  it('agrees with Date on every instant written with any offset and 0..3 fraction digits', () => {
    const pad = (n: number, width = 2) => String(Math.abs(n)).padStart(width, '0');
    fc.assert(
      fc.property(
        fc.integer({ min: -62167219200000, max: 253402300799999 }),
        fc.integer({ min: -(23 * 60 + 59), max: 23 * 60 + 59 }),
        fc.integer({ min: 0, max: 3 }),
        (epoch, offsetMinutes, digits) => {
          const ms = ((epoch % 1000) + 1000) % 1000;
          const step = 10 ** (3 - digits);
          const truncated = epoch - ms + Math.floor(ms / step) * step; // what `digits` fraction digits can say
          const local = new Date(truncated + offsetMinutes * 60_000).toISOString(); // wall clock at that offset
          fc.pre(/^\d{4}-/.test(local));
          const offset =
            offsetMinutes === 0 && digits % 2 === 0
              ? 'Z'
              : `${offsetMinutes < 0 ? '-' : '+'}${pad(Math.trunc(offsetMinutes / 60))}:${pad(offsetMinutes % 60)}`;
          const written = local.slice(0, 19) + (digits > 0 ? local.slice(19, 20 + digits) : '') + offset;
          const parsed = parseInstant(written);
          if (truncated < -62167219200000 || truncated > 253402300799999) expect(parsed.ok).toBe(false);
          else expect(parsed).toEqual({ ok: true, value: new Date(truncated).toISOString() });
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('checks the calendar of input that is already canonical', () => {
    expect(parseInstant('2024-02-30T00:00:00.000Z').ok).toBe(false);
    expect(parseInstant('2023-02-29T23:59:59.999Z').ok).toBe(false);
    expect(parseInstant('0050-06-01T12:00:00.000+01:00')).toEqual({ ok: true, value: '0050-06-01T11:00:00.000Z' });
  });

  it('explains why it rejects', () => {
    expect(parseInstant('2024-05-01T09:30:00.1234Z')).toEqual({ ok: false, message: expect.stringContaining('millisecond') });
    expect(parseInstant('2024-02-30T00:00:00Z')).toEqual({ ok: false, message: expect.stringContaining('calendar') });
    expect(parseInstant('2024-05-01T09:30:00')).toEqual({ ok: false, message: expect.stringContaining('offset') });
  });

  it('instantOrStar accepts "*" and canonicalises instants', () => {
    expect(instantOrStar.parse('*')).toBe('*');
    expect(instantOrStar.parse('2024-05-01T11:30:00+02:00')).toBe('2024-05-01T09:30:00.000Z');
    expect(instantOrStar.safeParse('**').success).toBe(false);
  });
});

describe('memoryId', () => {
  it.each(['a', '0', 'agent-42', 'conv_26', 'a'.repeat(63)])('accepts %s', (v) => {
    expect(memoryId.safeParse(v).success).toBe(true);
  });
  it.each(['', '-a', '_a', 'A', 'a b', 'a.b', 'a/b', 'é', 'a'.repeat(64), 'a\n'])('rejects %p', (v) => {
    expect(memoryId.safeParse(v).success).toBe(false);
  });
});

describe('id', () => {
  it('accepts 1..128 code points, counting a surrogate pair once', () => {
    expect(id.safeParse('x').success).toBe(true);
    expect(id.safeParse('x'.repeat(128)).success).toBe(true);
    expect(id.safeParse('😀'.repeat(128)).success).toBe(true); // 256 UTF-16 units
    expect(id.safeParse('D1:3 with spaces/and-punct.').success).toBe(true);
  });
  it.each([
    ['empty', ''],
    ['too long', 'x'.repeat(129)],
    ['too long (astral)', '😀'.repeat(129)],
    ['NUL', 'a\u0000b'],
    ['newline', 'a\nb'],
    ['tab', 'a\tb'],
    ['DEL', 'a\u007fb'],
    ['C1 control', 'a\u0085b'],
    ['lone high surrogate', 'a\ud800'],
    ['lone low surrogate', '\udc00a'],
  ])('rejects %s', (_label, v) => {
    expect(id.safeParse(v).success).toBe(false);
  });
  it('rejects non-strings', () => {
    expect(id.safeParse(42).success).toBe(false);
  });
});

describe('text', () => {
  it('accepts unicode, newlines, empty, and exactly 64 KiB', () => {
    expect(text.safeParse('').success).toBe(true);
    expect(text.safeParse('line 1\nline 2\t😀 ünïcödé').success).toBe(true);
    expect(text.safeParse('a'.repeat(65536)).success).toBe(true);
    expect(text.safeParse('😀'.repeat(16384)).success).toBe(true); // 4 bytes each
  });
  it.each([
    ['NUL', 'a\u0000b'],
    ['lone surrogate', 'ok \ud83d then'],
    ['reversed pair', '\ude00\ud83d'],
    ['over 64 KiB', 'a'.repeat(65537)],
    ['over 64 KiB in UTF-8 only', 'é'.repeat(32769)],
  ])('rejects %s', (_label, v) => {
    expect(text.safeParse(v).success).toBe(false);
  });
  it('nonBlankText rejects empty and whitespace-only', () => {
    expect(nonBlankText.safeParse('').success).toBe(false);
    expect(nonBlankText.safeParse(' \n\t').success).toBe(false);
    expect(nonBlankText.safeParse(' Alice ').success).toBe(true);
  });
  it('measures code points and UTF-8 bytes', () => {
    expect(codePointLength('a😀é')).toBe(3);
    expect(utf8ByteLength('a😀é€')).toBe(1 + 4 + 2 + 3);
    expect(utf8ByteLength('a😀é€')).toBe(Buffer.byteLength('a😀é€', 'utf8'));
  });
});
