import { projectedPosition } from '@memotrace/projection';
import { type Harness, MemoryWriter, openHarness } from '../../../projections/read-models/src/testing/pg-harness';
import type { OpenSearchItemIndex } from './opensearch-item-index';
import { openSearchProjection, openSearchProjectionName } from './search-projection';
import { describeWithOpenSearch, freshIndex, hashedEmbedding } from './testing/opensearch-test-env';

const embedder = { embed: async (texts: readonly string[]) => texts.map((t) => hashedEmbedding(t)) };

/** The projection run by the real projector: log in PostgreSQL, checkpoint in rm_checkpoints, rebuild from 0. */
describeWithOpenSearch('openSearchProjection run by the projector (checkpoint in PostgreSQL)', (url) => {
  let harness: Harness;
  let index: OpenSearchItemIndex;
  beforeAll(async () => {
    harness = await openHarness();
    index = await freshIndex(url, 'projector');
  });
  afterAll(async () => {
    await harness?.close();
    await index?.dropIndex();
    await index?.close();
  });

  const visibleAt = (recordedAt: string) => index.visible('acme', { validAt: '*', recordedAt });

  it('indexes the log, checkpoints in PostgreSQL, and a rebuild from 0 gives the same index', async () => {
    const writer = new MemoryWriter(harness, 'acme');
    await writer.when(
      { op: 'UPSERT_ENTITY', entityId: 'alice', name: 'Alice', recordedAt: '2024-05-06T09:00:00.000Z' },
      { op: 'UPSERT_ENTITY', entityId: 'acme', name: 'Acme', recordedAt: '2024-05-06T09:00:00.000Z' },
      { op: 'RECORD_MENTION', mentionId: 'm1', docId: 'chat', text: 'I just joined Acme', speaker: 'Alice', recordedAt: '2024-05-06T09:00:00.000Z' },
      { op: 'UPSERT_EDGE', factId: 'f1', src: 'alice', rel: 'works_at', dst: 'acme', evidence: ['m1'], recordedAt: '2024-05-06T09:00:00.000Z' },
    );
    const head = (await writer.when({ op: 'ARCHIVE_EDGE', factId: 'f1', recordedAt: '2024-05-09T10:00:00.000Z' }))!;

    const projection = openSearchProjection(index, { embedder });
    let projector = await harness.startProjector({ projections: [projection] });
    expect(await projector.waitForPosition(head, 20_000)).toBe(true);
    expect(await projectedPosition(harness.db.pool, openSearchProjectionName(index.index))).toBe(head);
    expect(await visibleAt('2024-05-07T00:00:00.000Z')).toEqual(['fact:f1', 'mention:m1']);
    expect(await visibleAt('2024-05-09T10:00:00.000Z')).toEqual(['mention:m1']);
    expect((await index.bm25('acme', 'Alice works at Acme', { validAt: '*', recordedAt: '2024-05-07T00:00:00.000Z' }, 5))[0]?.itemId).toBe('f1');
    await projector.stop();

    // Rebuild: an empty index and the checkpoint back at 0 give the same index.
    const before = await index.find('acme', { kind: 'fact', field: 'itemId', values: ['f1'] });
    await index.dropIndex();
    await index.ensureIndex();
    await harness.db.pool.query('UPDATE rm_checkpoints SET position = 0 WHERE projection = $1', [openSearchProjectionName(index.index)]);
    projector = await harness.startProjector({ projections: [projection] });
    expect(await projector.waitForPosition(head, 20_000)).toBe(true);
    await projector.stop();
    expect(await index.find('acme', { kind: 'fact', field: 'itemId', values: ['f1'] })).toEqual(before);
    expect(await visibleAt('2024-05-07T00:00:00.000Z')).toEqual(['fact:f1', 'mention:m1']);
  });

  it('embeds before its transaction: the log\u2019s safe head does not wait for a slow embedding', async () => {
    let release!: () => void;
    const released = new Promise<void>((done) => (release = done));
    let embedding!: () => void;
    const started = new Promise<void>((done) => (embedding = done));
    let calls = 0;
    const slow = {
      async embed(texts: readonly string[]) {
        calls += 1;
        embedding();
        await released;
        return texts.map((t) => hashedEmbedding(t));
      },
    };
    const projector = await harness.startProjector({ projections: [openSearchProjection(index, { embedder: slow })] });
    try {
      await new MemoryWriter(harness, 'slow').when({
        op: 'RECORD_MENTION',
        mentionId: 'm1',
        docId: 'chat',
        text: 'a long turn',
        recordedAt: '2024-05-06T09:00:00.000Z',
      });
      await started; // the projector is now embedding that mention
      const later = (await new MemoryWriter(harness, 'other').when({
        op: 'UPSERT_ENTITY',
        entityId: 'e',
        name: 'E',
        recordedAt: '2024-05-06T09:00:00.000Z',
      }))!;
      const deadline = Date.now() + 5_000;
      while ((await harness.store.headPosition()) < later && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      const head = await harness.store.headPosition();
      release();
      expect(head).toBe(later);
      expect(await projector.waitForPosition(later, 20_000)).toBe(true);
      expect(calls).toBe(1); // handle took the vector prepare made
      const [mention] = await index.find('slow', { kind: 'mention', field: 'itemId', values: ['m1'] });
      expect(mention?.vector).toHaveLength(512);
    } finally {
      release();
      await projector.stop();
    }
  });
});
