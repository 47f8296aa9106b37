import { smallest } from './best-first';
import { BM25 } from './bm25';

/** One query term at a cut: its postings and what each counts for. */
export interface TermPostings {
  /** Version indices, ascending; those `accepted` refuses are not in the cut. */
  docs: ArrayLike<number>;
  frequencies: ArrayLike<number>;
  /** Versions outside `docs` that have the term at the cut (facts rendered there): index, frequency, length; ascending. */
  extra: ReadonlyArray<readonly [number, number, number]>;
  idf: number;
}

export interface TopBm25Input {
  /** The query's distinct terms, in query order: a version's score sums its terms in this order. */
  terms: readonly TermPostings[];
  /** Whether a version of `docs` is in the cut. */
  accepted: (i: number) => boolean;
  /** Term count of a version of `docs`. */
  lengths: ArrayLike<number>;
  averageLength: number;
  limit: number;
  /** Order of versions with equal scores. */
  tieOrder: (a: number, b: number) => number;
}

/**
 * The `limit` best versions by BM25 (highest first, ties in `tieOrder`), with the scores an
 * exhaustive term-at-a-time sum gives, bit for bit: MaxScore dynamic pruning (Turtle and Flood).
 * Terms are ordered by the most each can add; once the best `limit` so far score above what the
 * weakest terms can add together, those terms only score versions the others found, by seeking:
 * most versions of a term that most versions have are then passed over, not scored. A version is
 * left out only when what it can reach is below the `limit`-th score, with slack for the summation
 * order; versions that tie with it are all kept (any of them may win on `tieOrder`).
 */
export function topBm25({ terms, accepted, lengths, averageLength, limit, tieOrder }: TopBm25Input): { index: number; score: number }[] {
  const { k1, b } = BM25;
  const contribution = (t: number, f: number, length: number): number => {
    const norm = k1 * (1 - b + (b * length) / averageLength);
    return terms[t]!.idf * ((f * (k1 + 1)) / (f + norm));
  };
  const cursors = terms.map((term) => new Cursor(term, accepted, lengths));
  const bounds = terms.map((term, t) => {
    const { maxFrequency, minLength } = extremes(term, accepted, lengths);
    return maxFrequency === 0 ? 0 : contribution(t, maxFrequency, minLength);
  });
  // Weakest first: the non-essential terms are a prefix of this order.
  const order = terms.map((_, t) => t).sort((x, y) => bounds[x]! - bounds[y]!);
  const reach: number[] = [];
  order.reduce((sum, t, j) => (reach[j] = sum + bounds[t]!), 0);
  const top = new TopK(limit, tieOrder);
  let essential = 0;
  for (;;) {
    let d = Infinity;
    for (let j = essential; j < order.length; j++) d = Math.min(d, cursors[order[j]!]!.doc);
    if (d === Infinity) break;
    let found = 0;
    for (let j = essential; j < order.length; j++) {
      const c = cursors[order[j]!]!;
      if (c.doc === d) found += contribution(order[j]!, c.frequency, c.length);
    }
    const rest = essential > 0 ? reach[essential - 1]! : 0;
    if (!(top.full && (found + rest) * SLACK < top.threshold)) {
      let score = 0;
      for (let t = 0; t < terms.length; t++) {
        const c = cursors[t]!;
        c.seek(d);
        if (c.doc === d) score += contribution(t, c.frequency, c.length);
      }
      if (top.offer(d, score)) while (essential < order.length && reach[essential]! * SLACK < top.threshold) essential += 1;
    }
    for (let j = essential; j < order.length; j++) {
      const c = cursors[order[j]!]!;
      if (c.doc === d) c.next();
    }
  }
  return top.best();
}

/** A bound's margin over a sum in another order: float rounding can move a sum by a few units in the last place. */
const SLACK = 1 + 1e-9;

/** The largest frequency and the shortest length among the term's versions in the cut (a bound on what it adds). */
function extremes(term: TermPostings, accepted: (i: number) => boolean, lengths: ArrayLike<number>): { maxFrequency: number; minLength: number } {
  let maxFrequency = 0;
  let minLength = Infinity;
  for (let p = 0; p < term.docs.length; p++) {
    const i = term.docs[p]!;
    if (!accepted(i)) continue;
    maxFrequency = Math.max(maxFrequency, term.frequencies[p]!);
    minLength = Math.min(minLength, lengths[i]!);
  }
  for (const [, f, length] of term.extra) {
    maxFrequency = Math.max(maxFrequency, f);
    minLength = Math.min(minLength, length);
  }
  return { maxFrequency, minLength };
}

/** A term's versions in the cut in ascending order: its postings that are accepted merged with its extra ones. */
class Cursor {
  doc = Infinity;
  frequency = 0;
  length = 0;
  private p = 0;
  private e = 0;

  constructor(
    private readonly term: TermPostings,
    private readonly accepted: (i: number) => boolean,
    private readonly lengths: ArrayLike<number>,
  ) {
    this.settle();
  }

  next(): void {
    if (this.p < this.term.docs.length && this.term.docs[this.p] === this.doc) this.p += 1;
    else this.e += 1;
    this.settle();
  }

  /** Moves to the first version at or after `d`. */
  seek(d: number): void {
    if (this.doc >= d) return;
    const { docs, extra } = this.term;
    // Galloping, then binary search: seeks move forward by small steps mostly.
    let step = 1;
    let hi = this.p;
    while (hi < docs.length && docs[hi]! < d) {
      this.p = hi + 1;
      hi += step;
      step *= 2;
    }
    hi = Math.min(hi, docs.length);
    while (this.p < hi) {
      const mid = (this.p + hi) >> 1;
      if (docs[mid]! < d) this.p = mid + 1;
      else hi = mid;
    }
    while (this.e < extra.length && extra[this.e]![0] < d) this.e += 1;
    this.settle();
  }

  private settle(): void {
    const { docs, frequencies, extra } = this.term;
    while (this.p < docs.length && !this.accepted(docs[this.p]!)) this.p += 1;
    const fromDocs = this.p < docs.length ? docs[this.p]! : Infinity;
    const fromExtra = this.e < extra.length ? extra[this.e]![0] : Infinity;
    if (fromDocs < fromExtra) {
      this.doc = fromDocs;
      this.frequency = frequencies[this.p]!;
      this.length = this.lengths[fromDocs]!;
    } else if (fromExtra !== Infinity) {
      [this.doc, this.frequency, this.length] = extra[this.e]!;
    } else this.doc = Infinity;
  }
}

/**
 * The best `limit` (index, score) pairs offered. A heap of scores alone gives the `limit`-th best
 * score so far; every pair that reaches it is kept, and ties are ordered only at the end, among those
 * still at the last threshold: versions often tie (same words, same length), and ordering each
 * one as it comes would cost more than scoring it.
 */
class TopK {
  private readonly heap: Float64Array;
  private size = 0;
  private readonly indices: number[] = [];
  private readonly scores: number[] = [];
  private compactAt: number;

  constructor(
    private readonly limit: number,
    private readonly tieOrder: (a: number, b: number) => number,
  ) {
    this.heap = new Float64Array(Math.max(limit, 0));
    this.compactAt = 4 * limit + 1024;
  }

  get full(): boolean {
    return this.size >= this.limit;
  }

  /** The `limit`-th best score so far: a version must reach it to be kept. */
  get threshold(): number {
    return this.heap[0]!;
  }

  /** Keeps the pair if it reaches the threshold; true when the threshold may have moved. */
  offer(index: number, score: number): boolean {
    if (this.limit <= 0 || (this.full && score < this.heap[0]!)) return false;
    this.indices.push(index);
    this.scores.push(score);
    if (!this.full) {
      this.push(score);
      return this.full;
    }
    if (score === this.heap[0]) return false;
    this.heap[0] = score;
    this.down();
    // Pairs kept before the threshold rose past them are dropped now and then, so the list holds little besides ties.
    if (this.indices.length > this.compactAt) this.compact();
    return true;
  }

  private compact(): void {
    const threshold = this.heap[0]!;
    let kept = 0;
    for (let j = 0; j < this.indices.length; j++) {
      if (this.scores[j]! < threshold) continue;
      this.indices[kept] = this.indices[j]!;
      this.scores[kept++] = this.scores[j]!;
    }
    this.indices.length = kept;
    this.scores.length = kept;
    // Ties stay: the next compaction waits until the list has doubled, so each pair is moved a bounded number of times.
    this.compactAt = Math.max(this.compactAt, 2 * kept);
  }

  best(): { index: number; score: number }[] {
    const threshold = this.full ? this.heap[0]! : Number.NEGATIVE_INFINITY;
    const above: number[] = [];
    const tied: number[] = [];
    for (let j = 0; j < this.indices.length; j++) {
      if (this.scores[j]! > threshold) above.push(j);
      else if (this.scores[j] === threshold) tied.push(j);
    }
    const order = (x: number, y: number) => this.scores[y]! - this.scores[x]! || this.tieOrder(this.indices[x]!, this.indices[y]!);
    const picked = [...above.sort(order), ...smallest(tied, this.limit - above.length, order)];
    return picked.map((j) => ({ index: this.indices[j]!, score: this.scores[j]! }));
  }

  private push(score: number): void {
    let j = this.size++;
    while (j > 0) {
      const parent = (j - 1) >> 1;
      if (this.heap[parent]! <= score) break;
      this.heap[j] = this.heap[parent]!;
      j = parent;
    }
    this.heap[j] = score;
  }

  private down(): void {
    const score = this.heap[0]!;
    let j = 0;
    for (;;) {
      let child = 2 * j + 1;
      if (child >= this.size) break;
      if (child + 1 < this.size && this.heap[child + 1]! < this.heap[child]!) child += 1;
      if (this.heap[child]! >= score) break;
      this.heap[j] = this.heap[child]!;
      j = child;
    }
    this.heap[j] = score;
  }
}
