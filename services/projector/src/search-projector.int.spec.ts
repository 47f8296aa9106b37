import { PostgresLogStore, logStoreMigrations } from '@memotrace/log-store';
import { memoryStreamId, toNewRecords } from '@memotrace/memory-log';
import { type TestDatabase, createTestDatabase, migrate } from '@memotrace/postgres';
import { readModelMigrations } from '@memotrace/read-models';
import { type EmbeddingProvider, cachedEmbeddings, searchIndexMigrations } from '@memotrace/search-index';
import type { MemoryRecord } from '@memotrace/domain';
import { type RunningProjector, runSearchIndexProjector } from './run-projector';

/**
 * The search-index projector embeds outside its transaction: a transaction that holds a
 * transaction id (its checkpoint row lock) holds back the safe head of every reader of the
 * log, so a slow embedding inside it stalled the read models and read-your-writes of every
 * memory (a batch of 64 KiB mentions: minutes).
 */
describe('search-index projector', () => {
  let db: TestDatabase;
  let store: PostgresLogStore;
  let projector: RunningProjector | undefined;

  beforeAll(async () => {
    db = await createTestDatabase();
    await migrate(db.pool, [...logStoreMigrations, ...readModelMigrations, ...searchIndexMigrations]);
    store = new PostgresLogStore(db.pool);
  });
  afterAll(async () => {
    await projector?.stop();
    await store.close();
    await db.drop();
  });

  const append = (memoryId: string, commandId: string, event: Omit<MemoryRecord, 'meta'>) =>
    store.append(
      memoryStreamId(memoryId),
      toNewRecords(memoryId, [{ ...event, meta: { commandId, recordedAt: '2024-05-01T00:00:00.000Z', actor: null, reason: null } } as MemoryRecord]),
      {
        expectedRevision: 'any',
      },
    );

  it('does not hold back the log while it embeds', async () => {
    let release!: () => void;
    const released = new Promise<void>((done) => (release = done));
    let embedding!: () => void;
    const started = new Promise<void>((done) => (embedding = done));
    const slow: EmbeddingProvider = {
      model: 'slow-test',
      dimension: 2,
      async embed(texts) {
        embedding();
        await released;
        return texts.map(() => Float32Array.from([1, 0]));
      },
    };
    projector = await runSearchIndexProjector(store, db.pool, cachedEmbeddings(slow), (error) => {
      throw error;
    });
    await append('slow', 'c1', {
      type: 'MentionRecorded',
      data: { mentionId: 'm1', docId: 'd', text: 'a long turn', speaker: null, occurredAt: null },
    });
    await started; // the projector is now embedding that mention
    const later = await append('other', 'c2', { type: 'EntityRegistered', data: { entityId: 'e', name: 'E', aliases: [], types: [] } });
    const deadline = Date.now() + 5_000;
    while ((await store.headPosition()) < later.position && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    const head = await store.headPosition();
    release();
    expect(head).toBe(later.position);
    expect(await projector.waitForPosition(later.position, 10_000)).toBe(true);
    const { rows } = await db.pool.query('SELECT count(*)::int AS n FROM si_vectors');
    expect(rows[0].n).toBe(1);
  }, 30_000);
});
