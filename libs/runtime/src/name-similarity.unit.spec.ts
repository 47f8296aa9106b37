import { type EmbeddingProvider, normalize } from '@memotrace/search-index';
import { nameSimilarity } from './name-similarity';

/** Names as vectors given by the test; every call counted. */
function provider(vectors: Record<string, number[]>, cosineFloor?: number): EmbeddingProvider & { calls: string[][] } {
  const calls: string[][] = [];
  return {
    model: 'test-names',
    ...(cosineFloor !== undefined ? { cosineFloor } : {}),
    calls,
    async embed(texts) {
      calls.push([...texts]);
      return texts.map((t) => normalize(vectors[t]!));
    },
  };
}

describe('nameSimilarity', () => {
  it('scores names by cosine measured from the model floor, in [0, 1], named by the model', async () => {
    const model = provider({ 'Acme Corp': [1, 0], 'Acme Corporation': [1, 0.1], Alice: [0, 1], Bob: [-1, 0] }, 0.2);
    const names = nameSimilarity(model);
    expect(names.similarityModel).toBe('test-names');
    const [same, other, opposite] = await names.similarity()('Acme Corp', ['Acme Corporation', 'Alice', 'Bob']);
    expect(same).toBeCloseTo((Math.cos(Math.atan(0.1)) - 0.2) / 0.8, 6);
    expect(other).toBe(0); // cosine 0 is under the floor
    expect(opposite).toBe(0);
  });

  it('embeds each name once per extraction, and keeps nothing from one extraction to the next', async () => {
    const model = provider({ A: [1, 0], B: [0, 1], C: [1, 1] });
    const names = nameSimilarity(model);
    const first = names.similarity();
    await first('A', ['B', 'C']);
    await first('C', ['A', 'B']);
    expect(model.calls).toEqual([['A', 'B', 'C']]);
    await names.similarity()('A', ['B']);
    expect(model.calls).toEqual([
      ['A', 'B', 'C'],
      ['A', 'B'],
    ]);
  });

  it('fails when the model fails: the extraction fails rather than derive otherwise', async () => {
    const broken: EmbeddingProvider = { model: 'down', embed: () => Promise.reject(new Error('model unavailable')) };
    await expect(nameSimilarity(broken).similarity()('A', ['B'])).rejects.toThrow('model unavailable');
  });
});
