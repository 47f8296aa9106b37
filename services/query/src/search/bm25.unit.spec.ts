import fc from 'fast-check';
import { MAX_STEMMED_LENGTH, analyze, analyzeUnicode, stem } from './analyze';
import { BM25, bm25Scores } from './bm25';

describe('analyze', () => {
  it('lower-cases, splits on anything but letters and digits, drops function words, stems', () => {
    expect(analyze('Where does Alice work?')).toEqual(['alic', 'work']);
    expect(analyze("Alice's companies, works_at ACME-2024")).toEqual(['alic', 'compani', 'work', 'acm', '2024']);
  });

  it('is Unicode-aware: NFKC, accents kept, ideographs one term per character', () => {
    expect(analyze('Ｃａｆé Zürich')).toEqual(['café', 'zürich']);
    expect(analyze('東京タワー Tokyo')).toEqual(['東', '京', 'タ', 'ワ', 'ー', 'tokyo']);
    expect(analyze('Москва столица')).toEqual(['москва', 'столица']);
  });

  it('stems English words by Porter2: inflections of one word meet', () => {
    expect(['works', 'classes', 'status', 'glass', 'bus', 'tea'].map(stem)).toEqual(['work', 'class', 'status', 'glass', 'bus', 'tea']);
    expect(new Set(['research', 'researching', 'researched'].map(stem))).toEqual(new Set(['research']));
    expect(new Set(['camp', 'camped', 'camping', 'camps'].map(stem))).toEqual(new Set(['camp']));
    expect(new Set(['company', 'companies'].map(stem)).size).toBe(1);
    expect(bm25Scores(['Caroline: Researching adoption agencies'], 'What did Caroline research?')[0]).toBeGreaterThan(0);
  });

  it('leaves words that are not plain ASCII letters unstemmed', () => {
    expect(['cafés', 'straße', 'r2d2s', '2024s'].map(stem)).toEqual(['cafés', 'straße', 'r2d2s', '2024s']);
  });

  it('stems words up to MAX_STEMMED_LENGTH letters and keeps longer runs whole (Porter2 is quadratic in the length)', () => {
    const longest = `${'research'.repeat(MAX_STEMMED_LENGTH / 8 - 1)}research`.slice(0, -3) + 'ing';
    expect([longest.length, stem(longest)]).toEqual([MAX_STEMMED_LENGTH, longest.slice(0, -3)]);
    expect(stem(`a${longest}`)).toBe(`a${longest}`);
    // A 64 KiB run of letters (valid item text) is one term, as it is.
    expect(analyze(`hello ${'y'.repeat(65_000)} worlds`)).toEqual(['hello', 'y'.repeat(65_000), 'world']);
  });

  it('analyses an ASCII text without the Unicode machinery, to the same terms', () => {
    const word = fc.constantFrom(
      'Where',
      'DOES',
      'the',
      'Alice',
      'works_at',
      'researching',
      'r2d2s',
      '2024',
      'y'.repeat(MAX_STEMMED_LENGTH + 1),
      'café',
      '東京',
    );
    const text = fc.array(fc.oneof(word, fc.string({ unit: 'binary-ascii', maxLength: 12 })), { maxLength: 8 }).map((parts) => parts.join(' '));
    fc.assert(fc.property(text, (t) => expect(analyze(t)).toEqual(analyzeUnicode(t))));
  });

  it('gives no terms for punctuation or function words alone', () => {
    expect(analyze('?!  …')).toEqual([]);
    expect(analyze('what is the')).toEqual([]);
  });
});

describe('BM25 (k1 1.2, b 0.3)', () => {
  const corpus = ['Alice works at Acme', 'Bob works at Beta', 'Carol likes tea'];

  it('uses the named parameters', () => {
    expect(BM25).toEqual({ k1: 1.2, b: 0.3 });
  });

  it('matches the formula on a hand-computed case', () => {
    // N = 3, df(acme) = 1, tf = 1, |d| = avgdl = 3 (at is a function word): idf * 1 * 2.2 / (1 + 1.2).
    const [acme, beta, tea] = bm25Scores(corpus, 'acme');
    expect(acme).toBeCloseTo(Math.log(1 + 2.5 / 1.5), 12);
    expect(beta).toBe(0);
    expect(tea).toBe(0);
  });

  it('scores > 0 exactly the documents sharing a term with the query', () => {
    expect(bm25Scores(corpus, 'who works?').map((s) => s > 0)).toEqual([true, true, false]);
    expect(bm25Scores(corpus, 'zebra')).toEqual([0, 0, 0]);
    expect(bm25Scores(corpus, 'the of')).toEqual([0, 0, 0]);
    expect(bm25Scores([], 'acme')).toEqual([]);
  });

  it('ranks a rare term above a common one, and more matched terms above fewer', () => {
    const [alice, bob] = bm25Scores(corpus, 'works beta');
    expect(bob).toBeGreaterThan(alice!);
    const docs = ['acme works', 'acme', 'works', 'works', 'zzz'];
    const scores = bm25Scores(docs, 'acme works');
    expect(scores[0]).toBeGreaterThan(scores[1]!);
    expect(scores[1]).toBeGreaterThan(scores[2]!);
    expect(scores[4]).toBe(0);
  });

  it('normalises by length: the same match in a shorter document scores higher', () => {
    const [short, long] = bm25Scores(['acme', 'acme and a very long description of many other things entirely'], 'acme');
    expect(short).toBeGreaterThan(long!);
  });

  it('saturates term frequency (k1) and counts repeated query terms once', () => {
    const [once, twice, many] = bm25Scores(['acme x x x', 'acme acme x x', 'acme acme acme acme'], 'acme');
    expect(twice).toBeGreaterThan(once!);
    expect(many! - twice!).toBeLessThan((twice! - once!) * 2);
    expect(bm25Scores(corpus, 'acme acme acme')).toEqual(bm25Scores(corpus, 'acme'));
  });

  it('depends on the corpus: the cut is the corpus, idf is computed over it alone', () => {
    const [inSmall] = bm25Scores(['acme'], 'acme');
    const [inLarge] = bm25Scores(['acme', 'beta', 'gamma', 'delta'], 'acme');
    expect(inLarge).toBeGreaterThan(inSmall!);
  });
});
