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
    table.register(texts.length, (i) => texts[i]!);
    expect(table.rowOf(0)).toBe(-1);
    await table.catchUp(store, 'mem');
    expect(texts.map((_, i) => table.rowOf(i) >= 0)).toEqual(texts.map(() => true));
    expect(Array.from(table.vector(3)!)).toEqual([3, 1]);
  });

  it('reads a large delta in the background: the search goes on with what it has', async () => {
    const { texts, pages, store } = storeOf(INLINE_VECTOR_PAGE * 3);
    const table = new CorpusVectors();
    table.register(texts.length, (i) => texts[i]!);
    await table.catchUp(store, 'mem');
    const last = texts.length - 1;
    expect(pages[0]).toBe(INLINE_VECTOR_PAGE);
    expect(table.rowOf(0)).toBeGreaterThanOrEqual(0);
    expect(table.rowOf(last)).toBe(-1);
    await table.catchUp(store, 'mem'); // a read is running: this search does not start or wait for another
    await settle(() => table.rowOf(last) >= 0);
    expect(Array.from(table.vector(last)!)).toEqual([last, 1]);
    expect(pages.reduce((a, b) => a + b, 0)).toBe(texts.length);
  });

  it('gives a later version the vector of an earlier one with the same text', async () => {
    const { texts, store } = storeOf(1);
    const table = new CorpusVectors();
    await table.catchUp(store, 'mem'); // read before any version has the text: kept until one does
    table.register(1, () => texts[0]!);
    table.register(8, (i) => (i === 7 ? texts[0]! : `other ${i}`));
    expect(table.rows).toBe(1);
    expect(Array.from(table.vector(7)!)).toEqual([0, 1]);
    expect(table.versionsOf(table.rowOf(0))).toEqual([0, 7]);
    expect(table.rowOf(3)).toBe(-1);
  });

  it('keeps no vector no version waits for from a store not projected past the latest erasure: it may be an erased text', async () => {
    const { texts, store } = storeOf(4);
    const table = new CorpusVectors();
    table.register(2, (i) => (i === 0 ? texts[0]! : null)); // version 1 was erased: it has no text
    await table.catchUp(store, 'mem', 10);
    table.register(4, (i) => texts[i]!); // a version of text 3 arrives after the read
    expect([0, 1, 2, 3].map((i) => table.rowOf(i) >= 0)).toEqual([true, false, false, false]);
    expect(table.rows).toBe(1);
    const past = new CorpusVectors();
    await past.catchUp(store, 'mem', 4); // projected past it: kept until a version has the text
    past.register(4, (i) => texts[i]!);
    expect(past.rows).toBe(4);
  });

  it('asks a store without deltas only for the texts still waiting', async () => {
    const table = new CorpusVectors();
    table.register(3, (i) => ['a', 'b', 'a'][i]!);
    expect(table.waitingHashes()).toEqual([textHash('a'), textHash('b')]);
    table.keepAll([[textHash('a'), Float32Array.from([1, 0])]]);
    expect(table.waitingHashes()).toEqual([textHash('b')]);
    expect(table.rows).toBe(1);
    expect([0, 1, 2].map((i) => table.rowOf(i))).toEqual([0, -1, 0]);
  });
});
