import type { Cut, ItemKind, MemoryRecord, ValidAt } from '@memotrace/domain';
import { RECORD_TIMES, VALID_TIMES, historyArb, runHistory } from '@memotrace/domain/testing/histories';
import type { ScoredItem } from '@memotrace/search-opensearch';
import fc from 'fast-check';
import type { ProjectionProgress } from '../consistency';
import { SearchCorpora } from './corpora';
import type { CutItems } from './cut-items';
import { embeddedRecall } from './embedded-recall';
import { openSearchRecall } from './opensearch-recall';
import { searchMemory } from './search';
import { hashVectorSource } from './testing/hash-vectors';
import { LogSearchFeed } from './testing/log-feed';

const M = 'os-recall';
const VALID_CUTS: ValidAt[] = ['*', ...VALID_TIMES];
const QUERIES = ['Name 1', 'Name 3 works at Name 0', 'hi', 'bye event', 'hi before Name 2', 'knows one 1 true'];
const OPTIONS = { vectorHits: 3, minCosine: -0.5 };

const vectorSource = hashVectorSource;

/**
 * A stand-in for OpenSearch's k-NN, as the engine must take it: candidates of the cut in any order,
 * with scores of its own (ignored), the same item more than once (its versions), and a document the
 * cut does not show (its projector's view of visibility is not the authority).
 */
function knnOf(seed: number) {
  let pick = seed;
  const next = () => (pick = (pick * 1103515245 + 12345) % 2147483648);
  let items: CutItems | undefined;
  const index = {
    calls: 0,
    knn: async (): Promise<ScoredItem[]> => {
      index.calls += 1;
      const keys = [...items!.texts()].map(({ key }) => key);
      const hits = [...keys, ...keys.slice(0, 2), `mention\u0000not-in-the-cut`].map((key) => {
        const [kind, itemId] = key.split('\u0000') as [ItemKind, string];
        return { itemKey: `${key}#${next() % 9}`, kind, itemId, score: (next() % 100) / 100 };
      });
      return hits.sort(() => (next() % 2 === 0 ? -1 : 1));
    },
    show(cut: CutItems) {
      items = cut;
    },
  };
  return index;
}

const progress = (reached: boolean) => {
  const calls: [number, number][] = [];
  const p: ProjectionProgress & { calls: typeof calls } = {
    calls,
    waitFor: async (position, timeoutMs) => {
      calls.push([position, timeoutMs]);
      return reached;
    },
  };
  return p;
};

describe('openSearchRecall', () => {
  it('ranks as the embedded backend does: OpenSearch supplies the k-NN candidates, the engine scores them', async () => {
    let knnCalls = 0;
    await fc.assert(
      fc.asyncProperty(historyArb, fc.nat(), async (batches, seed) => {
        const run = runHistory(batches, { memoryId: M });
        const log: readonly MemoryRecord[] = run.log;
        const corpora = new SearchCorpora(new LogSearchFeed(() => log));
        const index = knnOf(seed);
        const viaOpenSearch = openSearchRecall(index, vectorSource, OPTIONS, { openSearch: progress(true) });
        const embedded = embeddedRecall(vectorSource, OPTIONS);
        let pick = seed;
        const next = <T>(list: readonly T[]) => list[(pick = (pick * 1103515245 + 12345) % 2147483648) % list.length]!;
        for (const recordedAt of RECORD_TIMES) {
          const cut: Cut = { validAt: next(VALID_CUTS), recordedAt };
          const items = await corpora.cut(M, cut);
          index.show(items);
          const query = next(QUERIES);
          const written = { position: log.length, readYourWrites: false };
          const a = await searchMemory(items, { query, k: 10 }, undefined, { recall: viaOpenSearch, written });
          const b = await searchMemory(items, { query, k: 10 }, undefined, { recall: embedded, written });
          expect(JSON.stringify(a.items)).toBe(JSON.stringify(b.items));
        }
        knnCalls += index.calls;
      }),
      { numRuns: 40 },
    );
    expect(knnCalls).toBeGreaterThan(40);
  });

  it('scores k-NN in process while OpenSearch has not reached the read, without waiting for it', async () => {
    const run = runHistory([], { memoryId: M });
    const corpora = new SearchCorpora(new LogSearchFeed(() => run.log));
    const items = await corpora.cut(M, { validAt: '*', recordedAt: '2100-01-01T00:00:00.000Z' });
    expect(items.size).toBeGreaterThan(0);
    const index = knnOf(1);
    const behind = progress(false);
    const vectors = progress(true);
    const recall = openSearchRecall(index, vectorSource, OPTIONS, {
      openSearch: behind,
      vectors: { progress: vectors, waitMs: 1500 },
    });
    const embedded = await embeddedRecall(vectorSource, OPTIONS).recall({ query: 'hi', items });
    const fallback = await recall.recall({ query: 'hi', items, position: 42, readYourWrites: true });
    expect(index.calls).toBe(0);
    // The same hits; `unembedded` only when some item had no vector (none here).
    expect(embedded.unembedded).toBe(0);
    expect(fallback).toEqual({ ...embedded, unembedded: undefined });
    // A read-your-writes search waits for the vectors it ranks by, and only looks at OpenSearch.
    expect(behind.calls).toEqual([[42, 0]]);
    expect(vectors.calls).toEqual([[42, 1500]]);
    // Without minPosition nothing waits for the vectors either.
    await recall.recall({ query: 'hi', items, position: 42 });
    expect(vectors.calls).toHaveLength(1);
    expect(behind.calls.at(-1)).toEqual([42, 0]);
  });
});
