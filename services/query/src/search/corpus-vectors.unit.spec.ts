import { textHash } from '@memotrace/search-index';
import { CorpusVectors, INLINE_VECTOR_PAGE } from './corpus-vectors';
import type { VectorStore } from './cut-items';

/** A store of `count` texts, one per log position, each with a 2-d vector; it counts the pages it serves. */
function storeOf(count: number) {
  const texts = Array.from({ length: count }, (_, i) => `text ${i}`);
  const pages: number[] = [];
  const store: VectorStore = {
    model: 'm',
    vectors: async () => new Map(),
    since: async (_memoryId, after, limit) => {
      const page = texts.slice(after, after + limit);
      pages.push(page.length);
      await new Promise((resolve) => setTimeout(resolve, 1));
      return {
        vectors: new Map(page.map((text, i) => [textHash(text), Float32Array.from([after + i, 1])])),
        through: after + page.length,
        complete: after + page.length >= count,
      };
    },
  };
  return { texts, pages, store };
}

const settle = async (done: () => boolean) => {
  for (let i = 0; i < 1000 && !done(); i++) await new Promise((resolve) => setTimeout(resolve, 2));
};

describe('CorpusVectors keeps up with the store by deltas', () => {
  it('reads a small delta in line: the search that asked has its vectors', async () => {
    const { texts, store } = storeOf(10);
    const table = new CorpusVectors();
    await table.catchUp(store, 'mem');
    expect(texts.map((text, i) => table.claim(i, text, texts.length))).toEqual(texts.map(() => true));
    expect(Array.from(table.vector(3)!)).toEqual([3, 1]);
  });

  it('reads a large delta in the background: the search goes on with what it has', async () => {
    const { texts, pages, store } = storeOf(INLINE_VECTOR_PAGE * 3);
    const table = new CorpusVectors();
    await table.catchUp(store, 'mem');
    expect(pages[0]).toBe(INLINE_VECTOR_PAGE);
    expect(table.claim(0, texts[0]!, texts.length)).toBe(true);
    expect(table.claim(texts.length - 1, texts[texts.length - 1]!, texts.length)).toBe(false);
    await table.catchUp(store, 'mem'); // a read is running: this search does not start or wait for another
    await settle(() => table.claim(texts.length - 1, texts[texts.length - 1]!, texts.length));
    expect(table.claim(texts.length - 1, texts[texts.length - 1]!, texts.length)).toBe(true);
    expect(pages.reduce((a, b) => a + b, 0)).toBe(texts.length);
  });

  it('gives a later version the vector of an earlier one with the same text', async () => {
    const { texts, store } = storeOf(1);
    const table = new CorpusVectors();
    await table.catchUp(store, 'mem');
    expect(table.claim(0, texts[0]!, texts.length)).toBe(true);
    expect(table.claim(7, texts[0]!, 8)).toBe(true);
    expect(Array.from(table.vector(7)!)).toEqual([0, 1]);
  });
});
