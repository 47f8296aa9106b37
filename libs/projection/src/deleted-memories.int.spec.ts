import { PostgresLogStore, logStoreMigrations, type NewRecord } from '@memotrace/log-store';
import { memoryStreamId } from '@memotrace/memory-log';
import { type TestDatabase, createTestDatabase, migrate } from '@memotrace/postgres';
import { readModelMigrations } from '@memotrace/read-models';
import { randomUUID } from 'node:crypto';
import type { ProjectedRecord, Projection } from './contract';
import { startProjector } from './runner';

/**
 * A projector holds records it read before they were deleted (its queue, a slow `prepare`): once the
 * deletion has committed they must not reach a projection, while the memory's records written after
 * the deletion do.
 */
const mention = (mentionId: string, recordedAt: string): NewRecord => ({
  recordId: randomUUID(),
  type: 'MentionRecorded',
  data: { mentionId, docId: 'chat', text: `said ${mentionId}`, speaker: null, occurredAt: null },
  metadata: { commandId: `c-${mentionId}`, recordedAt, actor: null, reason: null },
});

describe('a projector and a deleted memory', () => {
  let db: TestDatabase;
  let store: PostgresLogStore;
  beforeAll(async () => {
    db = await createTestDatabase();
    await migrate(db.pool, [...logStoreMigrations, ...readModelMigrations]);
    store = new PostgresLogStore(db.pool);
  });
  afterAll(async () => {
    await store?.close();
    await db?.drop();
  });

  it('skips the records of a memory deleted after they were read, and applies the memory written again', async () => {
    const applied: string[] = [];
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    let preparing: () => void = () => undefined;
    const prepared = new Promise<void>((resolve) => (preparing = resolve));
    const projection: Projection = {
      name: 'deletion-test',
      version: 1,
      handles: ['mention'],
      // The first batch waits here, its records read, until the test has deleted the memory.
      async prepare() {
        preparing();
        await held;
      },
      async handle(records: readonly ProjectedRecord[]) {
        for (const record of records) applied.push(`${record.memoryId}@${record.position}`);
      },
    };
    await store.append(memoryStreamId('gone'), [mention('m1', '2024-01-01T00:00:00.000Z'), mention('m2', '2024-01-01T00:00:00.000Z')], {
      expectedRevision: 'no_stream',
    });
    const kept = await store.append(memoryStreamId('kept'), [mention('k1', '2024-01-01T00:00:00.000Z')], { expectedRevision: 'no_stream' });
    const projector = await startProjector({ store, pool: db.pool, projections: [projection], retryMs: 50 });
    try {
      await prepared;
      await store.deleteStream(memoryStreamId('gone'));
      const again = await store.append(memoryStreamId('gone'), [mention('m3', '2024-02-01T00:00:00.000Z')], { expectedRevision: 'no_stream' });
      release();
      expect(await projector.waitForPosition(again.position, 10_000)).toBe(true);
      expect(applied).toEqual([`kept@${kept.position}`, `gone@${again.position}`]);
    } finally {
      release();
      await projector.stop();
    }
  });
});
