import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { textHash } from '../text-hash';
import { cachedEmbeddings } from './cached';
import type { EmbeddingProvider } from './port';

function counting(): EmbeddingProvider & { calls: string[][] } {
  const calls: string[][] = [];
  return {
    model: 'count',
    calls,
    async embed(texts) {
      calls.push([...texts]);
      return texts.map((t) => Float32Array.from([t.length, 1]));
    },
  };
}

describe('cachedEmbeddings', () => {
  it('embeds each distinct text once and answers in input order', async () => {
    const base = counting();
    const cached = cachedEmbeddings(base);
    const first = await cached.embed(['aa', 'b', 'aa']);
    const second = await cached.embed(['b', 'ccc']);
    expect(base.calls).toEqual([['aa', 'b'], ['ccc']]);
    expect(first.map((v) => v[0])).toEqual([2, 1, 2]);
    expect(second.map((v) => v[0])).toEqual([1, 3]);
    expect(cached.model).toBe('count');
  });

  it('waits for texts another call is embedding instead of embedding them again, and a failure fails both calls', async () => {
    const base = counting();
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const slow: EmbeddingProvider = { model: 'count', embed: async (texts) => (await held, base.embed(texts)) };
    const cached = cachedEmbeddings(slow);
    const first = cached.embed(['aa', 'b']);
    const second = cached.embed(['b', 'ccc', 'aa']);
    release();
    expect((await first).map((v) => v[0])).toEqual([2, 1]);
    expect((await second).map((v) => v[0])).toEqual([1, 3, 2]);
    expect(base.calls).toEqual([['aa', 'b'], ['ccc']]);

    let fail!: (error: Error) => void;
    const failing = cachedEmbeddings({ model: 'f', embed: () => new Promise((_, reject) => (fail = reject)) });
    const calls = [failing.embed(['x']), failing.embed(['x'])];
    fail(new Error('model away'));
    await expect(calls[0]).rejects.toThrow('model away');
    await expect(calls[1]).rejects.toThrow('model away');
  });

  it('forgets the oldest entries beyond its bound', async () => {
    const base = counting();
    const cached = cachedEmbeddings(base, { maxEntries: 2 });
    await cached.embed(['a']);
    await cached.embed(['b']);
    await cached.embed(['c']);
    await cached.embed(['a']);
    expect(base.calls).toEqual([['a'], ['b'], ['c'], ['a']]);
  });

  it('forgets erased texts, in memory and in its file: they are embedded again, the others not', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'memotrace-embeddings-'));
    try {
      const base = counting();
      const cached = cachedEmbeddings(base, { dir });
      await cached.embed(['canary text', 'kept text']);
      cached.forget!([textHash('canary text')]);
      expect(readFileSync(join(dir, 'count.jsonl'), 'utf8')).not.toContain(textHash('canary text'));
      expect(readFileSync(join(dir, 'count.jsonl'), 'utf8')).toContain(textHash('kept text'));
      await cached.embed(['canary text', 'kept text']);
      const reopened = counting();
      await cachedEmbeddings(reopened, { dir }).embed(['kept text']);
      expect(base.calls).toEqual([['canary text', 'kept text'], ['canary text']]);
      expect(reopened.calls).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
