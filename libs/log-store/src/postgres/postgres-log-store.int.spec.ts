import type { TestDatabase } from '@memotrace/postgres';
import pg from 'pg';
import { newRecord, newRecords, collect, eventually, sleep, expectStored, expectStrictlyIncreasing } from '../testing/helpers';
import { describeLogStoreConformance } from '../testing/conformance';
import { openPostgresStore } from '../testing/postgres-store';
import { PostgresLogStore } from './postgres-log-store';

describeLogStoreConformance('PostgresLogStore', async () => {
  const { db, store } = await openPostgresStore();
  return {
    store,
    teardown: async () => {
      await store.close();
      await db.drop();
    },
  };
});

// testTimeout in jest.config.js is not applied per project, so set it here.
jest.setTimeout(60_000);

describe('PostgresLogStore (PostgreSQL specifics)', () => {
  let db: TestDatabase;
  let store: PostgresLogStore;

  beforeAll(async () => {
    ({ db, store } = await openPostgresStore());
  });
  afterAll(async () => {
    await store.close();
    await db.drop();
  });

  it('runs writes alongside an append in its transaction: they commit with the records, roll back with them, and skip a retry', async () => {
    await db.pool.query('CREATE TABLE alongside_rows (stream text, revision integer)');
    const alongside = (streamId: string) => async (tx: Pick<pg.ClientBase, 'query'>) => {
      // The stream's revision before the records, as the transaction sees it: the records are already in.
      await tx.query('INSERT INTO alongside_rows SELECT $1::text, revision FROM mt_streams WHERE stream_id = $1', [streamId]);
    };
    const rows = async () => (await db.pool.query('SELECT stream, revision FROM alongside_rows ORDER BY 1, 2')).rows;
    const records = newRecords(3);
    await store.append('alongside', records, { expectedRevision: 'no_stream', alongside: alongside('alongside') });
    expect(await rows()).toEqual([{ stream: 'alongside', revision: 2 }]);

    // An idempotent retry writes nothing: nor does its alongside.
    expect((await store.append('alongside', records, { expectedRevision: 'no_stream', alongside: alongside('alongside') })).idempotentRetry).toBe(
      true,
    );
    // A failing alongside rolls the records back.
    await expect(
      store.append('alongside', newRecords(1), {
        expectedRevision: 2,
        alongside: async (tx) => {
          await alongside('alongside')(tx);
          throw new Error('alongside failed');
        },
      }),
    ).rejects.toThrow('alongside failed');
    expect(await rows()).toEqual([{ stream: 'alongside', revision: 2 }]);
    expect(await store.readStream('alongside')).toHaveLength(3);
  });

  it('readStream pages through a stream longer than a page (streamPageSize)', async () => {
    const paged = new PostgresLogStore(db.pool, { streamPageSize: 3 });
    const records = newRecords(10);
    await store.append('paged', records, { expectedRevision: 'no_stream' });
    expectStored(await paged.readStream('paged'), 'paged', records, 0);
    expectStored(await paged.readStream('paged', { fromRevision: 2, maxCount: 7 }), 'paged', records.slice(2, 9), 2);
    await paged.close();
  });

  it('a subscriber sees every record of 4 concurrent writers exactly once, in position order', async () => {
    const collector = collect(store, { fromPosition: await store.headPosition(), streamPrefix: 'load-' });
    const writer = async (w: number) => {
      const written: string[] = [];
      let revision = -1;
      while (written.length < 500) {
        const records = newRecords(Math.min(1 + ((written.length * 7 + w) % 5), 500 - written.length));
        const result = await store.append(`load-${w}-${written.length % 3}`, records, { expectedRevision: 'any' });
        expect(result.idempotentRetry).toBe(false);
        revision = result.nextExpectedRevision;
        written.push(...records.map((record) => record.recordId));
      }
      return { written, revision };
    };

    const results = await Promise.all([0, 1, 2, 3].map(writer));
    const expected = new Set(results.flatMap((r) => r.written));
    expect(expected.size).toBe(2_000);
    await eventually(
      () => collector.received,
      (received) => received.length >= 2_000,
      30_000,
    );
    await sleep(1_000);
    collector.subscription.unsubscribe();

    expect(collector.errors).toEqual([]);
    expect(collector.received).toHaveLength(2_000);
    expect(new Set(collector.received.map((record) => record.recordId))).toEqual(expected);
    expectStrictlyIncreasing(collector.received.map((record) => record.position));
    const logged = await store.readAll({ fromPosition: 0, maxCount: 5_000, streamPrefix: 'load-' });
    expect(logged.map((record) => record.position)).toEqual(collector.received.map((record) => record.position));
  });

  it('hides records above a still-open append until it commits (no skipped positions)', async () => {
    const start = await store.headPosition();
    // An append caught between reserving its position and committing.
    const slow = new pg.Client({ connectionString: db.url });
    await slow.connect();
    try {
      await slow.query('BEGIN');
      const reserved = await slow.query<{ positions: string[] }>('SELECT mt_reserve_positions(1) AS positions');
      const slowPosition = Number(reserved.rows[0]!.positions[0]);
      await slow.query(
        `INSERT INTO mt_events (position, stream_id, revision, event_id, type, data, metadata)
         VALUES ($1, 'gap-slow', 0, $2, 'Slow', '{}', '{}')`,
        [slowPosition, newRecord().recordId],
      );
      const fast = await store.append('gap-fast', [newRecord()], { expectedRevision: 'no_stream' });
      expect(fast.position).toBeGreaterThan(slowPosition);

      const collector = collect(store, { fromPosition: start, streamPrefix: 'gap-' });
      await sleep(1_000);
      expect(await store.headPosition()).toBeLessThan(slowPosition);
      expect(await store.readAll({ fromPosition: start, maxCount: 10, streamPrefix: 'gap-' })).toEqual([]);
      expect(collector.received).toEqual([]);

      await slow.query('COMMIT');
      await eventually(
        () => collector.received,
        (received) => received.length >= 2,
      );
      collector.subscription.unsubscribe();
      expect(collector.received.map((record) => [record.streamId, record.position])).toEqual([
        ['gap-slow', slowPosition],
        ['gap-fast', fast.position],
      ]);
    } finally {
      await slow.end();
    }
  });

  it('delivers soon after a non-append transaction that held records back ends, without waiting for the poll', async () => {
    // A 10 s poll: only the NOTIFY path and the held-back re-read can deliver within this test.
    const slowPoll = new PostgresLogStore(db.pool, { pollIntervalMs: 10_000 });
    const blocker = new pg.Client({ connectionString: db.url });
    await blocker.connect();
    try {
      const collector = collect(slowPoll, { fromPosition: await store.headPosition(), streamPrefix: 'held-' });
      await slowPoll.append('held-warmup', [newRecord()], { expectedRevision: 'no_stream' });
      await eventually(
        () => collector.received,
        (received) => received.length >= 1,
      );

      // Any transaction with an id holds the safe head back, and its commit sends no NOTIFY.
      await blocker.query('BEGIN');
      await blocker.query('SELECT pg_current_xact_id()');
      const held = await slowPoll.append('held-s', [newRecord()], { expectedRevision: 'no_stream' });
      await sleep(300);
      expect(collector.received).toHaveLength(1);

      await blocker.query('COMMIT');
      const committedAt = Date.now();
      await eventually(
        () => collector.received,
        (received) => received.length >= 2,
        5_000,
      );
      expect(Date.now() - committedAt).toBeLessThan(1_000);
      collector.subscription.unsubscribe();
      expect(collector.errors).toEqual([]);
      expect(collector.received.map((record) => record.position)).toEqual([expect.any(Number), held.position]);
    } finally {
      await blocker.end();
      await slowPoll.close();
    }
  });

  it('refuses to reserve positions once the transaction already has an id', async () => {
    const client = await db.pool.connect();
    try {
      await client.query('BEGIN');
      await client.query('SELECT pg_current_xact_id()');
      await expect(client.query('SELECT mt_reserve_positions(1)')).rejects.toThrow(/must run before the transaction writes/);
      await client.query('ROLLBACK');
      // the reservation lock was not leaked into this pooled connection
      await expect(
        client.query('SELECT count(*) AS n FROM pg_locks WHERE locktype = $1 AND pid = pg_backend_pid()', ['advisory']),
      ).resolves.toMatchObject({ rows: [{ n: 0 }] });
    } finally {
      client.release();
    }
  });

  it('appends a batch of 1000 records in one round of statements', async () => {
    const startedAt = Date.now();
    const result = await store.append('batch-1', newRecords(1_000, ['batch-tag']), { expectedRevision: 'no_stream' });
    const elapsed = Date.now() - startedAt;
    expect(result.nextExpectedRevision).toBe(999);
    expect(elapsed).toBeLessThan(2_000);
    expect(await store.readByTag('batch-tag')).toHaveLength(1_000);
  });

  it('close() completes live subscriptions and releases their connections', async () => {
    const other = await openPostgresStore();
    try {
      let completed = false;
      other.store.subscribe({ fromPosition: 0 }).subscribe({ complete: () => (completed = true) });
      await sleep(200);
      await other.store.close();
      expect(completed).toBe(true);
      const connections = () =>
        db.pool
          .query<{ n: number }>('SELECT count(*) AS n FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [
            new URL(other.db.url).pathname.slice(1),
          ])
          .then((result) => result.rows[0]!.n);
      // The pool belongs to the caller; only the listener connection must be gone.
      await other.db.pool.end();
      expect(await eventually(connections, (n) => n === 0)).toBe(0);
    } finally {
      await other.db.drop();
    }
  });
});
