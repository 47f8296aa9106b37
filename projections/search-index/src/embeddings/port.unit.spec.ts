import { EMBEDDED_CHARS, embeddedPart } from './port';

describe('embeddedPart', () => {
  it('keeps a text of up to EMBEDDED_CHARS characters whole', () => {
    expect(embeddedPart('a dialog turn')).toBe('a dialog turn');
    expect(embeddedPart('x'.repeat(EMBEDDED_CHARS))).toBe('x'.repeat(EMBEDDED_CHARS));
  });

  it('cuts a longer text to its first EMBEDDED_CHARS characters', () => {
    expect(embeddedPart('x'.repeat(EMBEDDED_CHARS) + 'tail')).toBe('x'.repeat(EMBEDDED_CHARS));
  });

  it('never ends inside a surrogate pair', () => {
    const text = 'x'.repeat(EMBEDDED_CHARS - 1) + '😀' + 'tail';
    expect(embeddedPart(text)).toBe('x'.repeat(EMBEDDED_CHARS - 1));
  });
});
