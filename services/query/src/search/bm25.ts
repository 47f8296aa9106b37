import { memoize } from '@memotrace/domain';
import { analyze } from './analyze';

/** Document terms, memoized (a document's terms never change; the result is not mutated). */
const documentTerms = memoize(analyze);

/**
 * BM25 parameters (Robertson/Sparck Jones, with Lucene's always-positive idf). Length
 * normalisation is weaker than the usual b 0.75: among short texts such as dialogue
 * turns, "Nate: Take care!" would otherwise outrank the longer turn about how Nate
 * takes care of his turtles (b tuned on the LoCoMo dev split only).
 */
export const BM25 = { k1: 1.2, b: 0.3 } as const;

/**
 * BM25 score of every document for `query`, over the corpus `documents` (the items of
 * one cut: document frequencies and the average length are the cut's own).
 * idf(t) = ln(1 + (N - n_t + 0.5) / (n_t + 0.5)) is positive for every term that
 * occurs, so a document scores > 0 iff it contains a query term. Repeated query
 * terms count once.
 */
export function bm25Scores(documents: readonly string[], query: string, params: { k1: number; b: number } = BM25): number[] {
  const queryTerms = [...new Set(analyze(query))];
  if (queryTerms.length === 0 || documents.length === 0) return documents.map(() => 0);
  const wanted = new Set(queryTerms);
  const lengths: number[] = [];
  const frequencies: Map<string, number>[] = [];
  const documentFrequency = new Map<string, number>();
  for (const document of documents) {
    const terms = documentTerms(document);
    const tf = new Map<string, number>();
    for (const term of terms) if (wanted.has(term)) tf.set(term, (tf.get(term) ?? 0) + 1);
    for (const term of tf.keys()) documentFrequency.set(term, (documentFrequency.get(term) ?? 0) + 1);
    lengths.push(terms.length);
    frequencies.push(tf);
  }
  const n = documents.length;
  const averageLength = lengths.reduce((sum, l) => sum + l, 0) / n || 1;
  const idf = new Map(
    queryTerms.map((t) => {
      const df = documentFrequency.get(t) ?? 0;
      return [t, Math.log(1 + (n - df + 0.5) / (df + 0.5))] as const;
    }),
  );
  // Summed in query-term order, the order an index that walks each term's postings sums in.
  return frequencies.map((tf, i) => {
    let score = 0;
    const norm = params.k1 * (1 - params.b + (params.b * lengths[i]!) / averageLength);
    for (const term of queryTerms) {
      const f = tf.get(term);
      if (f !== undefined) score += idf.get(term)! * ((f * (params.k1 + 1)) / (f + norm));
    }
    return score;
  });
}
