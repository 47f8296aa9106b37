import type { EmbeddingProvider, VectorLookup } from '@memotrace/search-index';
import { embedAhead } from './embedded-recall';
import { projectedVectors } from './projected-vectors';

/** A provider that records its calls; a query waits for `release` (loading the model, `warm up`, does not unless `slowLoad`). */
function countingProvider({ fail = false, slowLoad = false } = {}) {
  const calls: string[][] = [];
  let release = () => {};
  const gate = new Promise<void>((r) => (release = r));
  const provider: EmbeddingProvider = {
    model: 'test',
    embed: async (texts) => {
      calls.push([...texts]);
      if (slowLoad || texts[0] !== 'warm up') await gate;
      if (fail) throw new Error('endpoint down');
      return texts.map((t) => Float32Array.of(t.length));
    },
  };
  return { provider, calls, release };
}

const lookup = { vectors: async () => new Map() } as unknown as VectorLookup;
const tick = () => new Promise((r) => setTimeout(r, 1));

/** A source whose model has loaded; the warm-up call is forgotten. */
async function warmed(provider: EmbeddingProvider, calls: string[][], warn: (m: string) => void = () => {}) {
  const source = projectedVectors(provider, lookup, warn);
  source.warm();
  await tick();
  calls.length = 0;
  return source;
}

describe('projectedVectors', () => {
  it('never waits for the model to load: until it has, a search gets no vector (BM25 only)', async () => {
    const { provider, calls, release } = countingProvider({ slowLoad: true });
    const source = projectedVectors(provider, lookup, () => {});
    expect(await source.queryVector('where is ann?')).toBeNull(); // starts the load, does not wait for it
    expect(calls).toEqual([['warm up']]);
    release();
    await tick();
    expect(await source.queryVector('where is ann?')).toEqual(Float32Array.of(13));
  });

  it('a read-your-writes search waits for a model still loading, at most as long as it may wait', async () => {
    const { provider, release } = countingProvider({ slowLoad: true });
    const source = projectedVectors(provider, lookup, () => {});
    expect(await source.queryVector('where is ann?', 5)).toBeNull(); // the load outlasts the wait
    const waiting = source.queryVector('where is ann?', 60_000);
    release();
    expect(await waiting).toEqual(Float32Array.of(13));
  });

  it('a query already being embedded (started before the cut was ready) is joined, not embedded again', async () => {
    const { provider, calls, release } = countingProvider();
    const source = await warmed(provider, calls);
    const early = source.queryVector('where is ann?');
    const joined = source.queryVector('where is ann?');
    const other = source.queryVector('who is ben?');
    release();
    expect(await Promise.all([early, joined, other])).toEqual([Float32Array.of(13), Float32Array.of(13), Float32Array.of(11)]);
    expect(calls).toEqual([['where is ann?'], ['who is ben?']]);
    // Settled queries are not kept here (the provider caches vectors): a later search asks it again.
    await source.queryVector('where is ann?');
    expect(calls).toHaveLength(3);
  });

  it('an unavailable model gives no vector (BM25 only), warns once, and is not asked again for a minute', async () => {
    const { provider, calls, release } = countingProvider({ fail: true });
    const warnings: string[] = [];
    const source = projectedVectors(provider, lookup, (m) => warnings.push(m));
    release();
    source.warm();
    await tick();
    expect(await source.queryVector('q1')).toBeNull();
    expect(await source.queryVector('q2')).toBeNull();
    expect([calls.length, warnings]).toEqual([1, ['embeddings unavailable (endpoint down); searching with BM25 only']]);
  });

  it('a backend prepared with embedAhead starts the query embedding that its recall then joins', async () => {
    const { provider, calls, release } = countingProvider();
    const source = await warmed(provider, calls);
    embedAhead(source)('where is ann?');
    expect(calls).toEqual([['where is ann?']]); // started at once, before any recall asks
    const joined = source.queryVector('where is ann?');
    release();
    expect(await joined).toEqual(Float32Array.of(13));
    expect(calls).toHaveLength(1);
    expect(() => embedAhead(undefined)('q')).not.toThrow(); // BM25 only: nothing to start
  });
});
