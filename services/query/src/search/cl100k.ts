import { memoize } from '@memotrace/domain';

/** js-tiktoken's rank file format (`TiktokenBPE`). */
interface RankFile {
  pat_str: string;
  special_tokens: Record<string, number>;
  bpe_ranks: string;
}

// js-tiktoken ships typings that TypeScript (module node16) takes for ESM; its CommonJS build is what `require` loads.
const cl100kBase = require('js-tiktoken/ranks/cl100k_base') as RankFile;

/**
 * cl100k_base token counts (the tokenizer of GPT-3.5/GPT-4), exactly as
 * js-tiktoken's `encode(text, [], [])` counts them: special-token strings such as
 * `<|endoftext|>` are ordinary text here (an item's text is data, never a control
 * sequence).
 *
 * The ranks and the pre-tokenizer pattern are js-tiktoken's. The merge loop is our
 * own: js-tiktoken merges a piece by rescanning every pair after each merge, which is
 * quadratic in the piece's length, and item texts are untrusted input of up to 64 KiB.
 * Here a priority queue keyed by (rank, position) performs the same merges in the same order, leftmost lowest
 * rank first, in O(n log n).
 */
export class Cl100kCounter {
  private readonly ranks = new Map<string, number>();
  private readonly pattern: RegExp;
  /** Length in bytes of the longest token (128 for cl100k_base). */
  private readonly maxTokenBytes: number;
  /** Counts of short pieces: words recur across items and searches. */
  private readonly countShortPiece = memoize((piece) => this.countPiece(Buffer.from(piece, 'utf8')), 50_000);

  constructor() {
    this.pattern = new RegExp(cl100kBase.pat_str, 'gu');
    // Same format js-tiktoken reads: per line, an ignored field, the first rank, then base64 tokens.
    for (const line of cl100kBase.bpe_ranks.split('\n')) {
      if (line === '') continue;
      const [, offsetField, ...tokens] = line.split(' ');
      const offset = Number.parseInt(offsetField ?? '', 10);
      tokens.forEach((token, i) => this.ranks.set(Buffer.from(token, 'base64').toString('latin1'), offset + i));
    }
    let longest = 1;
    for (const token of this.ranks.keys()) longest = Math.max(longest, token.length);
    this.maxTokenBytes = longest;
  }

  /** No token is longer than the longest one, so a text has at least bytes / maxTokenBytes tokens. */
  lowerBound(text: string): number {
    return Math.ceil(Buffer.byteLength(text, 'utf8') / this.maxTokenBytes);
  }

  count(text: string): number {
    let total = 0;
    this.pattern.lastIndex = 0;
    for (const [piece] of text.matchAll(this.pattern))
      total += piece.length <= MAX_MEMOIZED_PIECE ? this.countShortPiece(piece) : this.countPiece(Buffer.from(piece, 'utf8'));
    return total;
  }

  /** Number of tokens of one pre-tokenized piece after byte-pair merging. */
  private countPiece(bytes: Buffer): number {
    const n = bytes.length;
    if (n <= 1) return n;
    const key = (from: number, to: number) => bytes.toString('latin1', from, to);
    if (this.ranks.has(key(0, n))) return 1;

    // Parts as a linked list over byte offsets: part i covers [i, end[i]) while alive.
    const end = new Int32Array(n);
    const next = new Int32Array(n);
    const prev = new Int32Array(n);
    const alive = new Uint8Array(n).fill(1);
    for (let i = 0; i < n; i++) {
      end[i] = i + 1;
      next[i] = i + 1 < n ? i + 1 : -1;
      prev[i] = i - 1;
    }
    const heap = new PairHeap();
    const pushPair = (left: number) => {
      const right = next[left]!;
      if (right < 0) return;
      const rank = this.ranks.get(key(left, end[right]!));
      if (rank !== undefined) heap.push(rank, left, end[right]!);
    };
    for (let i = 0; i + 1 < n; i++) pushPair(i);

    let parts = n;
    for (let top = heap.pop(); top !== undefined; top = heap.pop()) {
      const [, left, rightEnd] = top;
      const right = next[left]!;
      // Stale entry: the left part was absorbed, or its right neighbour changed.
      if (!alive[left] || right < 0 || end[right] !== rightEnd) continue;
      end[left] = rightEnd;
      alive[right] = 0;
      next[left] = next[right]!;
      if (next[left]! >= 0) prev[next[left]!] = left;
      parts--;
      if (prev[left]! >= 0) pushPair(prev[left]!);
      pushPair(left);
    }
    return parts;
  }
}

/** Min-heap of (rank, leftStart, rightEnd), ordered by rank then position (leftmost first). */
class PairHeap {
  private readonly items: [number, number, number][] = [];

  push(rank: number, left: number, rightEnd: number): void {
    const items = this.items;
    items.push([rank, left, rightEnd]);
    let i = items.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!less(items[i]!, items[parent]!)) break;
      [items[i], items[parent]] = [items[parent]!, items[i]!];
      i = parent;
    }
  }

  pop(): [number, number, number] | undefined {
    const items = this.items;
    const top = items[0];
    const last = items.pop();
    if (top === undefined || last === undefined || items.length === 0) return top;
    items[0] = last;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let smallest = i;
      if (l < items.length && less(items[l]!, items[smallest]!)) smallest = l;
      if (r < items.length && less(items[r]!, items[smallest]!)) smallest = r;
      if (smallest === i) break;
      [items[i], items[smallest]] = [items[smallest]!, items[i]!];
      i = smallest;
    }
    return top;
  }
}

function less(a: [number, number, number], b: [number, number, number]): boolean {
  return a[0] !== b[0] ? a[0] < b[0] : a[1] < b[1];
}

/** Longest piece (UTF-16 units) whose count is memoized: words, not untrusted long runs. */
const MAX_MEMOIZED_PIECE = 32;

let shared: Cl100kCounter | undefined;

/** The process-wide counter (its rank table, slow to build, is built on first use). */
export function cl100k(): Cl100kCounter {
  shared ??= new Cl100kCounter();
  return shared;
}
