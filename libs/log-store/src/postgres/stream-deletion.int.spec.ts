import { createPool } from '@memotrace/postgres';
import { newRecord, newRecords, eventually } from '../testing/helpers';
import { usePostgresStore } from '../testing/postgres-store';
import { type StreamDeletion, deleteStreamIn, streamDeletionsAfter } from './delete-stream';
import { StreamDeletionWatcher } from './stream-deletion-watcher';

jest.setTimeout(60_000);

describe('stream deletion on PostgreSQL', () => {
  const opened = usePostgresStore();

  it('removes every row of the stream (records, tag entries, revision) and logs the deletion', async () => {
    const { db, store } = opened;
    await store.append('del-a', [newRecord({ n: 0 }, ['fact:del-a:1', 'fact:del-a:2']), newRecord({ n: 1 })], { expectedRevision: 'no_stream' });
    await store.append('del-b', [newRecord({ n: 2 }, ['fact:del-a:1'])], { expectedRevision: 'no_stream' });
    const count = async (sql: string) => Number((await db.pool.query<{ n: string }>(sql)).rows[0]!.n);
    const before = await streamDeletionsAfter(db.pool, 0);

    const deleted = await store.deleteStream('del-a');

    expect(await count(`SELECT count(*) AS n FROM mt_events WHERE stream_id = 'del-a'`)).toBe(0);
    expect(await count(`SELECT count(*) AS n FROM mt_streams WHERE stream_id = 'del-a'`)).toBe(0);
    expect(await count(`SELECT count(*) AS n FROM mt_event_tags WHERE tag = 'fact:del-a:2'`)).toBe(0);
    // The other stream's entry under the same tag stays.
    expect(await count(`SELECT count(*) AS n FROM mt_event_tags WHERE tag = 'fact:del-a:1'`)).toBe(1);
    const logged = (await streamDeletionsAfter(db.pool, 0)).slice(before.length);
    expect(logged).toEqual([{ seq: expect.any(Number), streamId: 'del-a', position: deleted.position }]);
    // Nothing to delete: nothing logged.
    await store.deleteStream('del-a');
    expect(await streamDeletionsAfter(db.pool, logged[0]!.seq)).toEqual([]);
  });

  it('rolls back with the transaction it runs in', async () => {
    const { db, store } = opened;
    await store.append('del-tx', newRecords(2), { expectedRevision: 'no_stream' });
    const client = await db.pool.connect();
    try {
      await client.query('BEGIN');
      expect((await deleteStreamIn(client, 'del-tx')).records).toBe(2);
      await client.query('ROLLBACK');
    } finally {
      client.release();
    }
    expect(await store.readStream('del-tx')).toHaveLength(2);
  });

  it('a watcher (another process) hears of each deletion once, in commit order, at once', async () => {
    const { db, store } = opened;
    const pool = createPool(db.url, { max: 2 });
    const heard: StreamDeletion[] = [];
    // A poll far beyond the test: what it hears comes from the notification.
    const watcher = new StreamDeletionWatcher(pool, (deletion) => heard.push(deletion), { pollIntervalMs: 60_000 });
    await store.append('del-w0', newRecords(1), { expectedRevision: 'no_stream' });
    await store.deleteStream('del-w0'); // before the watcher: not reported
    await watcher.start();
    try {
      for (const id of ['del-w1', 'del-w2']) await store.append(id, newRecords(1), { expectedRevision: 'no_stream' });
      await store.deleteStream('del-w1');
      await store.deleteStream('del-w2');
      await store.deleteStream('del-w2'); // nothing left: no deletion
      await eventually(
        () => heard,
        (h) => h.length >= 2,
        5_000,
      );
      await watcher.check();
      expect(heard.map((d) => d.streamId)).toEqual(['del-w1', 'del-w2']);
    } finally {
      await watcher.stop();
      await pool.end();
    }
  });

  it('a watcher without its notification catches up by polling', async () => {
    const { db } = opened;
    const pool = createPool(db.url, { max: 2 });
    const heard: string[] = [];
    const watcher = new StreamDeletionWatcher(pool, (deletion) => heard.push(deletion.streamId), { pollIntervalMs: 100 });
    await watcher.start();
    try {
      // A deletion whose notification nobody hears: logged without NOTIFY, as if the listener had been down.
      await db.pool.query(`INSERT INTO mt_stream_deletions (stream_id, position) VALUES ('del-quiet', 1)`);
      await eventually(
        () => heard,
        (h) => h.includes('del-quiet'),
        5_000,
      );
      expect(heard).toEqual(['del-quiet']);
    } finally {
      await watcher.stop();
      await pool.end();
    }
  });
});
