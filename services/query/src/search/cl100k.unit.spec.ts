import fc from 'fast-check';
import { Cl100kCounter, cl100k } from './cl100k';

/** The reference: js-tiktoken's own encoder over the same ranks (its CommonJS build, see cl100k.ts). */
interface Encoder {
  encode(text: string, allowedSpecial?: string[] | 'all', disallowedSpecial?: string[] | 'all'): number[];
}
const { Tiktoken } = require('js-tiktoken/lite') as { Tiktoken: new (ranks: unknown) => Encoder };
const reference = new Tiktoken(require('js-tiktoken/ranks/cl100k_base'));
const referenceCount = (text: string) => reference.encode(text, [], []).length;

describe('cl100k token counts', () => {
  const counter = cl100k();

  it('is one shared counter', () => {
    expect(cl100k()).toBe(counter);
    expect(counter).toBeInstanceOf(Cl100kCounter);
  });

  it.each([
    ['', 0],
    ['hello world', 2],
    ['Alice works at Acme', 5],
    ['<|endoftext|>', referenceCount('<|endoftext|>')],
  ])('counts %j as %i tokens, like js-tiktoken', (text, expected) => {
    expect(counter.count(text)).toBe(expected);
    expect(counter.count(text)).toBe(referenceCount(text));
  });

  it('treats special-token strings as ordinary text (item texts are data)', () => {
    expect(() => counter.count('before <|endoftext|> after <|fim_prefix|>')).not.toThrow();
    expect(counter.count('before <|endoftext|> after')).toBeGreaterThan(3);
  });

  it('equals js-tiktoken on arbitrary Unicode text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 120 }), (text) => {
        expect(counter.count(text)).toBe(referenceCount(text));
      }),
      { numRuns: 1000 },
    );
  });

  it('equals js-tiktoken on word salads with long runs (the merge-heavy cases)', () => {
    const atom = fc.constantFrom(
      'a',
      'aa',
      'ab',
      ' ',
      '  ',
      '\n',
      '\t',
      '.',
      '=',
      '-',
      '語',
      '日本',
      'のテ',
      'é',
      '😀',
      '🏳️‍🌈',
      '0',
      '123',
      'ing',
      'the',
      'Acme',
      "'s",
      '\r\n',
    );
    fc.assert(
      fc.property(fc.array(atom, { maxLength: 200 }), (atoms) => {
        const text = atoms.join('');
        expect(counter.count(text)).toBe(referenceCount(text));
      }),
      { numRuns: 1000 },
    );
  });

  it.each([
    ['a long single word', 'a'.repeat(700)],
    ['a long run of spaces', ' '.repeat(700)],
    ['a long ideographic run', '日本語のテキスト'.repeat(60)],
    ['a long repeated pattern', 'abcabcxyzxyz'.repeat(60)],
  ])('equals js-tiktoken on %s', (_what, text) => {
    expect(counter.count(text)).toBe(referenceCount(text));
  });

  it('counts a pathological 64 KiB piece quickly (js-tiktoken alone is quadratic there)', () => {
    const started = Date.now();
    expect(counter.count('a'.repeat(64 * 1024))).toBe(8192);
    counter.count(' '.repeat(64 * 1024));
    counter.count('語'.repeat(20_000));
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('has a lower bound never above the count', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 300 }), (text) => {
        expect(counter.lowerBound(text)).toBeLessThanOrEqual(counter.count(text));
      }),
      { numRuns: 500 },
    );
    expect(counter.lowerBound('a'.repeat(64 * 1024))).toBeLessThanOrEqual(8192);
  });
});
