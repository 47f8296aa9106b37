import fc from 'fast-check';
import { BM25 } from './bm25';
import { type TermPostings, topBm25 } from './top-bm25';

/** The exhaustive ranking MaxScore must equal: every version's terms summed in query order, all sorted. */
function exhaustive(
  terms: readonly TermPostings[],
  accepted: (i: number) => boolean,
  lengths: number[],
  averageLength: number,
  limit: number,
  tieOrder: (a: number, b: number) => number,
) {
  const { k1, b } = BM25;
  const scores = new Map<number, number>();
  terms.forEach((term, t) => {
    const add = (i: number, f: number, length: number) => {
      const norm = k1 * (1 - b + (b * length) / averageLength);
      scores.set(i, (scores.get(i) ?? 0) + terms[t]!.idf * ((f * (k1 + 1)) / (f + norm)));
    };
    for (let p = 0; p < term.docs.length; p++) if (accepted(term.docs[p]!)) add(term.docs[p]!, term.frequencies[p]!, lengths[term.docs[p]!]!);
    for (const [i, f, length] of term.extra) add(i, f, length);
  });
  return [...scores]
    .map(([index, score]) => ({ index, score }))
    .sort((x, y) => y.score - x.score || tieOrder(x.index, y.index))
    .slice(0, limit);
}

const UNIVERSE = 60;

/** Random terms over versions 0..59: common ones (most versions) and rare ones, few frequencies and lengths so scores tie often. */
const caseArb = fc
  .record({
    terms: fc.array(
      fc.record({
        share: fc.constantFrom(0.05, 0.3, 0.9, 1),
        seed: fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: UNIVERSE, maxLength: UNIVERSE }),
        frequencies: fc.array(fc.integer({ min: 1, max: 3 }), { minLength: UNIVERSE, maxLength: UNIVERSE }),
        idf: fc.constantFrom(0.1, 0.5, 1.3, 2),
      }),
      { minLength: 1, maxLength: 5 },
    ),
    lengths: fc.array(fc.integer({ min: 1, max: 6 }), { minLength: UNIVERSE, maxLength: UNIVERSE }),
    accepted: fc.array(fc.boolean(), { minLength: UNIVERSE, maxLength: UNIVERSE }),
    /** Versions the cut renders again (outside the postings), with their own frequency and length. */
    rendered: fc.array(fc.boolean(), { minLength: UNIVERSE, maxLength: UNIVERSE }),
    limit: fc.integer({ min: 1, max: 25 }),
    reversedTies: fc.boolean(),
  })
  .map(({ terms, lengths, accepted, rendered, limit, reversedTies }) => {
    const postings: TermPostings[] = terms.map(({ share, seed, frequencies, idf }) => {
      const docs: number[] = [];
      const freqs: number[] = [];
      const extra: [number, number, number][] = [];
      for (let i = 0; i < UNIVERSE; i++) {
        if (seed[i]! >= share) continue;
        if (rendered[i] && accepted[i]) extra.push([i, frequencies[i]!, lengths[(i + 7) % UNIVERSE]!]);
        else {
          docs.push(i);
          freqs.push(frequencies[i]!);
        }
      }
      return { docs, frequencies: freqs, extra, idf };
    });
    return {
      terms: postings,
      // A rendered version's postings entry is not in the cut: its rendered text counts instead.
      accepted: (i: number) => accepted[i]! && !rendered[i],
      lengths,
      averageLength: lengths.reduce((s, l) => s + l, 0) / UNIVERSE,
      limit,
      tieOrder: reversedTies ? (a: number, b: number) => b - a : (a: number, b: number) => a - b,
    };
  });

describe('topBm25 (MaxScore)', () => {
  it('answers what the exhaustive ranking answers, scores bit for bit, over random postings with many ties', () => {
    fc.assert(
      fc.property(caseArb, (input) => {
        expect(topBm25(input)).toEqual(exhaustive(input.terms, input.accepted, input.lengths, input.averageLength, input.limit, input.tieOrder));
      }),
      { numRuns: 2000 },
    );
  });

  it('scores only a few versions of a term most versions have, once the rare term fills the top', () => {
    const n = 10_000;
    const common: TermPostings = { docs: Array.from({ length: n }, (_, i) => i), frequencies: new Array<number>(n).fill(1), extra: [], idf: 0.01 };
    const rare: TermPostings = { docs: [10, 500, 9000], frequencies: [1, 1, 1], extra: [], idf: 5 };
    let checked = 0;
    const accepted = () => {
      checked += 1;
      return true;
    };
    const lengths = new Array<number>(n).fill(3);
    const input = { terms: [common, rare], accepted, lengths, averageLength: 3, limit: 2, tieOrder: (a: number, b: number) => a - b };
    const best = topBm25(input);
    expect(best.map((h) => h.index)).toEqual([10, 500]);
    // The bounds read every posting once; ranking then visits the common term's up to the second rare one only.
    expect(checked - n).toBeLessThan(600);
  });
});
