import { VectorLookup, normalize, textHash } from '@memotrace/search-index';
import { cl100k } from '../../services/query/src/search/cl100k';
import { MemoryCorpus } from '../../services/query/src/search/corpus';
import { CorpusCut, CutView } from '../../services/query/src/search/corpus-cut';
import type { CutItems } from '../../services/query/src/search/cut-items';
import { embeddedRecall } from '../../services/query/src/search/embedded-recall';
import { projectedVectors } from '../../services/query/src/search/projected-vectors';
import { searchMemory } from '../../services/query/src/search/search';
import { Rng } from './scale/rng';
import { summary, timed } from './stats';

/**
 * `npm run bench:search-vectors`: the search pipeline of one memory with vectors on, in
 * process (no HTTP, no model: random unit vectors stand in for a model's, served through the
 * query service's own read-through `VectorLookup`), for memories of `BENCH_SEARCH_SIZES` turns
 * (default 10,000 and 100,000) and vectors of `BENCH_SEARCH_DIMS` (default 384 and 512, bge-small
 * and USE lite). Prints p50/p95/p99 of `searchMemory` (k = 25) with BM25 only, with the corpus's
 * vector scan (`CutItems.nearest`), and with kNN by scoring every text (`nearestByTexts`, the
 * path before the scan).
 */
const SIZES = (process.env['BENCH_SEARCH_SIZES'] ?? '10000,100000').split(',').map(Number);
const DIMS = (process.env['BENCH_SEARCH_DIMS'] ?? '384,512').split(',').map(Number);
const QUERIES = Number(process.env['BENCH_SEARCH_QUERIES'] ?? 200);
const AT = '2024-01-01T00:00:00.000Z';
const NOW = { validAt: '2025-01-01T00:00:00.000Z', recordedAt: '2025-01-01T00:00:00.000Z' };

/** The same cut without its vector scan: kNN falls back to scoring every text. */
function withoutScan(items: CutItems): CutItems {
  return {
    memoryId: items.memoryId,
    cut: items.cut,
    get size() {
      return items.size;
    },
    has: (key) => items.has(key),
    candidate: (key) => items.candidate(key),
    bm25: (query, options) => items.bm25(query, options),
    texts: () => items.texts(),
    neighbours: (key, fanOut) => items.neighbours(key, fanOut),
  };
}

async function main(): Promise<void> {
  const counter = cl100k();
  for (const size of SIZES) {
    const rng = new Rng(size);
    const syllables = ['ka', 'lo', 'mi', 'ne', 'ru', 'sa', 'ti', 'vo', 'ze', 'pa', 'qui', 'dor', 'ban', 'tel', 'gro'];
    const words = Array.from({ length: 5000 }, () => Array.from({ length: rng.between(2, 4) }, () => rng.pick(syllables)).join(''));
    const word = () => words[Math.floor(words.length * rng.next() ** 3)]!;
    const corpus = new MemoryCorpus();
    const mentions = Array.from({ length: size }, (_, i) => ({
      mentionId: `D${Math.floor(i / 25)}:${i % 25}`,
      docId: `D${Math.floor(i / 25)}`,
      speaker: `p${rng.int(200)}`,
      text: Array.from({ length: rng.between(6, 24) }, word).join(' '),
      occurredAt: Date.parse(AT),
      recordedFrom: Date.parse(AT),
    }));
    corpus.apply({ facts: [], events: [], episodes: [], mentions, entities: [], merges: [] });
    const questions = Array.from({ length: QUERIES }, () => `what did ${word()} say about ${word()} and ${word()}?`);
    for (const dim of DIMS) {
      const random = () => normalize(Float32Array.from({ length: dim }, () => rng.next() - 0.5));
      const stored = new Map(corpus.versions.map((v) => [textHash(v.text), Array.from(random())]));
      const queryVectors = new Map(questions.map((q) => [q, random()]));
      const db = {
        query: async (_sql: string, [, hashes]: [string, string[]]) => ({
          rows: hashes.flatMap((h) => (stored.has(h) ? [{ text_hash: h, vector: stored.get(h)! }] : [])),
        }),
      };
      const provider = { model: `random-${dim}`, cosineFloor: 0, embed: async (texts: readonly string[]) => texts.map((t) => queryVectors.get(t)!) };
      const deps = { recall: embeddedRecall(projectedVectors(provider, new VectorLookup(db as never), () => {})) };
      const cut = new CorpusCut(new CutView(corpus, NOW), 'bench', NOW);
      await searchMemory(cut, { query: questions[0]!, k: 25 }, counter, deps); // loads every vector once
      const runs: [string, CutItems, typeof deps | undefined][] = [
        ['BM25 only', cut, undefined],
        ['vectors, corpus scan', cut, deps],
        ['vectors, every text scored', withoutScan(cut), deps],
      ];
      for (const [label, items, withVectors] of runs) {
        if (label === 'BM25 only' && dim !== DIMS[0]) continue;
        const samples: number[] = [];
        for (const query of questions) await timed(samples, () => searchMemory(items, { query, k: 25 }, counter, withVectors));
        console.log(`${String(size).padStart(7)} turns  ${label === 'BM25 only' ? '     ' : `${dim}-d`}  ${label.padEnd(27)} ${summary(samples)}`);
      }
    }
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
