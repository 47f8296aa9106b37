import type { MemoryRecord } from '@memotrace/domain';
import { type ProjectedRecord, toProjectedRecord } from '@memotrace/projection';
import { rng, randomLog } from '../../../projections/read-models/src/testing/random-log';
import type { OpenSearchItemIndex } from './opensearch-item-index';
import { openSearchProjection } from './search-projection';
import { describeWithOpenSearch, freshIndex, hashedEmbedding } from './testing/opensearch-test-env';

const embedder = { embed: async (texts: readonly string[]) => texts.map((t) => hashedEmbedding(t)) };

/** Feeds the log to the projection in random batch sizes, with log positions, as the projector would. */
async function project(
  projection: ReturnType<typeof openSearchProjection>,
  memoryId: string,
  log: readonly MemoryRecord[],
  seed: number,
): Promise<void> {
  const random = rng(seed);
  const logged: ProjectedRecord[] = log.map((event, i) => toProjectedRecord(memoryId, i + 1, event));
  for (let i = 0; i < logged.length;) {
    const size = 1 + Math.floor(random() * 12);
    await projection.handle(logged.slice(i, i + size));
    i += size;
  }
}

async function dump(index: OpenSearchItemIndex, memoryId: string): Promise<unknown[]> {
  const { body } = await index.client.search({
    index: index.index,
    routing: memoryId,
    body: { size: 10000, query: { term: { memoryId } }, sort: [{ itemKey: 'asc' }] },
  });
  return (body.hits.hits as { _id: string; _source: unknown }[]).map((h) => [h._id, h._source]);
}

describeWithOpenSearch('openSearchProjection against a real node', (url) => {
  let index: OpenSearchItemIndex;
  beforeAll(async () => {
    index = await freshIndex(url, 'projection');
  });
  afterAll(async () => {
    await index?.dropIndex();
    await index?.close();
  });

  // What the index shows at each cut (SPEC 3.2 visibility, no leak) is checked against the domain's reference cut,
  // with every other backend, by services/query/src/cut-conformance.int.spec.ts.

  it('re-indexing the same log (a replayed batch, a rebuild from 0) rewrites exactly the same documents', async () => {
    const memoryId = 'idempotent';
    const { records: log } = randomLog(memoryId, 7, 80);
    const projection = openSearchProjection(index, { embedder });
    await project(projection, memoryId, log, 1);
    const first = await dump(index, memoryId);
    expect(first.length).toBeGreaterThan(10);
    // Rewritten documents (closed versions, recomputed visibility) keep their vectors.
    expect(
      first
        .filter((d) => (d as [string, { kind: string; vector?: unknown }])[1].kind !== 'entity')
        .every((d) => Array.isArray((d as [string, { vector?: unknown }])[1].vector)),
    ).toBe(true);
    await project(projection, memoryId, log, 2); // every event again, in other batch sizes
    expect(await dump(index, memoryId)).toEqual(first);
    await project(projection, memoryId, log.slice(0, 30), 3);
    expect(await dump(index, memoryId)).toEqual(first);
    await index.deleteMemory(memoryId);
    expect(await dump(index, memoryId)).toEqual([]);
    await project(projection, memoryId, log, 4);
    expect(await dump(index, memoryId)).toEqual(first);
  });

  it('renders facts with entity names and embeds new items, so bm25 and knn find them', async () => {
    const memoryId = 'rendered';
    const meta = (n: number) => ({ commandId: `c${n}`, recordedAt: `2024-05-0${n}T00:00:00.000Z`, actor: null, reason: null });
    const log: MemoryRecord[] = [
      { type: 'EntityRegistered', data: { entityId: 'ada', name: 'Ada Lovelace', aliases: [], types: [] }, meta: meta(1) },
      { type: 'EntityRegistered', data: { entityId: 'acme', name: 'Acme Corp', aliases: [], types: [] }, meta: meta(1) },
      {
        type: 'FactAsserted',
        data: {
          factId: 'f1',
          src: 'ada',
          rel: 'worksAt',
          dst: 'acme',
          validFrom: '2024-05-01T00:00:00.000Z',
          validTo: null,
          confidence: null,
          evidence: ['m1'],
          source: null,
        },
        meta: meta(2),
      },
      {
        type: 'MentionRecorded',
        data: { mentionId: 'm1', docId: 'd1', text: 'I started at Acme today', speaker: 'Ada', occurredAt: '2024-05-02T00:00:00.000Z' },
        meta: meta(2),
      },
    ];
    await project(openSearchProjection(index, { embedder }), memoryId, log, 5);
    const cut = { validAt: '*' as const, recordedAt: '2024-05-03T00:00:00.000Z' };
    const [fact] = await index.get(memoryId, ['fact:f1#3']);
    expect(fact).toMatchObject({ text: 'Ada Lovelace works at Acme Corp', evidence: ['m1'], valid: { from: '2024-05-01T00:00:00.000Z', to: null } });
    expect((await index.bm25(memoryId, 'where does Lovelace work', cut, 5)).map((h) => h.itemId)).toEqual(['f1']);
    const knn = await index.knn(memoryId, hashedEmbedding('Ada Lovelace works at Acme Corp'), cut, 5);
    expect(knn.map((h) => `${h.kind}:${h.itemId}`)).toEqual(['fact:f1', 'mention:m1']);
    expect(knn[0]!.score).toBeCloseTo(1, 5);
    // Recorded on 05-02: not visible at 05-01 (no leak), even to knn.
    expect(
      await index.knn(memoryId, hashedEmbedding('Ada Lovelace works at Acme Corp'), { validAt: '*', recordedAt: '2024-05-01T12:00:00.000Z' }, 5),
    ).toEqual([]);
  });
});
