import fc from 'fast-check';
import type { SearchDoc } from './documents';
import { OpenSearchItemIndex } from './opensearch-item-index';
import { describeWithOpenSearch, freshIndex, hashedEmbedding } from './testing/opensearch-test-env';

const T = (n: number) => new Date(Date.UTC(2024, 4, 1) + n * 3_600_000).toISOString();

function doc(
  memoryId: string,
  id: string,
  text: string,
  recordedFrom: number,
  recordedTo: number | null = null,
  valid: [number, number | null] | null = null,
  kind: SearchDoc['kind'] = 'fact',
): SearchDoc {
  const from = T(recordedFrom);
  const to = recordedTo === null ? null : T(recordedTo);
  return {
    memoryId,
    itemKey: `${kind}:${id}`,
    kind,
    itemId: id,
    text,
    vector: hashedEmbedding(text),
    recorded: [{ from, to }],
    valid: valid ? { from: T(valid[0]), to: valid[1] === null ? null : T(valid[1]) } : null,
    recordedFrom: from,
    recordedTo: to,
    position: recordedFrom + 1,
  };
}

const ids = (items: { itemId: string }[]) => items.map((i) => i.itemId);

describeWithOpenSearch('OpenSearchItemIndex against a real node', (url) => {
  let index: OpenSearchItemIndex;
  beforeAll(async () => {
    index = await freshIndex(url, 'items');
  });
  afterAll(async () => {
    await index?.dropIndex();
    await index?.close();
  });

  it('creates the index idempotently with knn_vector (lucene hnsw, cosine) and date_range cut fields', async () => {
    await index.ensureIndex();
    const { body } = await index.client.indices.getMapping({ index: index.index });
    const properties = (Object.values(body)[0] as { mappings: { properties: Record<string, Record<string, unknown>> } }).mappings.properties;
    expect(properties['vector']).toMatchObject({
      type: 'knn_vector',
      dimension: 512,
      method: { engine: 'lucene', space_type: 'cosinesimil', name: 'hnsw' },
    });
    expect(properties['recorded']!['type']).toBe('date_range');
    expect(properties['valid']!['type']).toBe('date_range');
  });

  describe('ranking', () => {
    const m = 'rank';
    beforeAll(async () => {
      await index.upsert([
        doc(m, 'a', 'Alice moved to Berlin in May', 0),
        doc(m, 'b', 'Alice likes hiking and climbing in the Alps', 0),
        doc(m, 'c', 'Bob moved to Paris; Bob moved again to Berlin', 0),
        doc(m, 'd', 'The weather was sunny', 0),
      ]);
    });
    const now = { validAt: '*' as const, recordedAt: T(10) };

    it('bm25 ranks by term match (more matching rare terms first) and returns only matching items', async () => {
      const hits = await index.bm25(m, 'hiking Alps', now, 10);
      expect(ids(hits)).toEqual(['b']);
      const berlin = await index.bm25(m, 'moved Berlin Alice', now, 10);
      expect(ids(berlin)[0]).toBe('a');
      expect(new Set(ids(berlin))).toEqual(new Set(['a', 'b', 'c']));
      expect(berlin.map((h) => h.score)).toEqual([...berlin.map((h) => h.score)].sort((x, y) => y - x));
    });

    it('knn ranks by cosine similarity of the vectors', async () => {
      const hits = await index.knn(m, hashedEmbedding('sunny weather'), now, 4);
      expect(ids(hits)[0]).toBe('d');
      expect(hits[0]!.score).toBeCloseTo((1 + 2 / Math.sqrt(2 * 4)) / 2, 4); // lucene cosine score: (1 + cos) / 2
      const alice = await index.knn(m, hashedEmbedding('Alice moved to Berlin in May'), now, 2);
      expect(ids(alice)).toEqual(['a', 'c']);
    });

    it('never returns another memory\u2019s items', async () => {
      await index.upsert([doc('other', 'x', 'Alice moved to Berlin in May', 0)]);
      expect(ids(await index.bm25(m, 'Alice Berlin', now, 10))).not.toContain('x');
      expect(ids(await index.knn(m, hashedEmbedding('Alice moved to Berlin in May'), now, 10))).not.toContain('x');
      expect(ids(await index.bm25('other', 'Alice Berlin', now, 10))).toEqual(['x']);
    });
  });

  describe('the cut is a filter inside the query', () => {
    const m = 'cut';
    beforeAll(async () => {
      await index.upsert([
        doc(m, 'v1', 'Ada works at Acme', 2, 5, [0, 8]), // recorded [2, 5), valid [0, 8)
        doc(m, 'v2', 'Ada works at Acme', 5, null, [0, 6]), // the correction, recorded [5, inf)
        doc(m, 'mention', 'Ada: I work at Acme', 3, null, null, 'mention'),
      ]);
    });
    const both = async (cut: { validAt: string; recordedAt: string }) => {
      const bm25 = ids(await index.bm25(m, 'Ada Acme', cut, 10)).sort();
      const knn = ids(await index.knn(m, hashedEmbedding('Ada works at Acme'), cut, 10)).sort();
      expect(knn).toEqual(bm25);
      return bm25;
    };

    it('record interval is half-open: there at recordedFrom, gone at recordedTo', async () => {
      expect(await both({ validAt: '*', recordedAt: T(1) })).toEqual([]);
      expect(await both({ validAt: '*', recordedAt: T(2) })).toEqual(['v1']);
      expect(await both({ validAt: '*', recordedAt: new Date(Date.parse(T(5)) - 1).toISOString() })).toEqual(['mention', 'v1']);
      expect(await both({ validAt: '*', recordedAt: T(5) })).toEqual(['mention', 'v2']);
    });

    it('valid interval is half-open; validAt "*" ignores it; items without validity match any validAt', async () => {
      expect(await both({ validAt: T(0), recordedAt: T(4) })).toEqual(['mention', 'v1']);
      expect(await both({ validAt: T(7), recordedAt: T(4) })).toEqual(['mention', 'v1']);
      expect(await both({ validAt: T(8), recordedAt: T(4) })).toEqual(['mention']);
      expect(await both({ validAt: T(6), recordedAt: T(9) })).toEqual(['mention']);
      expect(await both({ validAt: '*', recordedAt: T(9) })).toEqual(['mention', 'v2']);
      expect(await both({ validAt: new Date(Date.UTC(2024, 4, 1) - 1).toISOString(), recordedAt: T(9) })).toEqual(['mention']);
    });

    it('closeRecordInterval ends the item at that record time', async () => {
      await index.closeRecordInterval(m, 'mention:mention', T(7), 99);
      expect(await both({ validAt: '*', recordedAt: T(6) })).toEqual(['mention', 'v2']);
      expect(await both({ validAt: '*', recordedAt: T(7) })).toEqual(['v2']);
    });
  });

  it('no leak: items recorded after the cut are never returned (random histories and cuts)', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 30 }), fc.option(fc.integer({ min: 1, max: 10 }), { nil: null })), {
          minLength: 1,
          maxLength: 12,
        }),
        fc.integer({ min: 0, max: 42 }),
        async (items, cutHour) => {
          const m = `leak-${run++}`;
          const docs = items.map(([from, length], i) =>
            doc(m, `i${i}`, `note about apples number ${i}`, from, length === null ? null : from + length),
          );
          await index.upsert(docs);
          const cut = { validAt: '*' as const, recordedAt: T(cutHour) };
          const expected = docs
            .filter((d) => d.recordedFrom <= cut.recordedAt && (d.recordedTo === null || cut.recordedAt < d.recordedTo))
            .map((d) => d.itemId)
            .sort();
          expect(ids(await index.bm25(m, 'apples', cut, 50)).sort()).toEqual(expected);
          expect(ids(await index.knn(m, hashedEmbedding('note about apples'), cut, 50)).sort()).toEqual(expected);
        },
      ),
      { numRuns: 15 },
    );
  });
});

describeWithOpenSearch('an OpenSearch index for another vector space', (url) => {
  let index: OpenSearchItemIndex;
  beforeAll(async () => {
    index = new OpenSearchItemIndex({ url, index: `memotrace-test-384-${Date.now()}` });
  });
  afterAll(async () => {
    await index?.dropIndex();
    await index?.close();
  });

  it("is made for the model's dimension, holds and finds its vectors, and refuses a model of another dimension", async () => {
    await index.ensureIndex(384);
    await index.ensureIndex(384); // idempotent
    expect(await index.vectorDimension()).toBe(384);
    const at = T(0);
    const item = (id: string, text: string): SearchDoc => ({
      memoryId: 'm',
      itemKey: `mention:${id}`,
      kind: 'mention',
      itemId: id,
      text,
      vector: hashedEmbedding(text, 384),
      recorded: [{ from: at, to: null }],
      valid: null,
      recordedFrom: at,
      recordedTo: null,
      position: 1,
    });
    await index.upsert([item('hike', 'hiking in the Alps'), item('city', 'a flat in Berlin')]);
    const hits = await index.knn('m', hashedEmbedding('Alps hiking', 384), { validAt: '*', recordedAt: T(5) }, 2);
    expect(hits.map((h) => h.itemId)).toEqual(['hike', 'city']);
    await expect(index.ensureIndex(512)).rejects.toThrow(`OpenSearch index ${index.index} holds 384-d vectors, the embedding model gives 512-d`);
  });
});
