import { randomUUID } from 'node:crypto';
import { IdempotencyConflictError, WrongExpectedRevisionError, type LogStore, type NewRecord, type StoredRecord } from '../port';
import { collect, eventually, expectStored, expectStrictlyIncreasing, newRecord, newRecords, sleep, type Collector } from './helpers';

export type LogStoreFactory = () => Promise<{ store: LogStore; teardown(): Promise<void> }>;

/** Jest's default of 5 s is too tight for a loaded shared server (and testTimeout is not a per-project option). */
const TIMEOUT_MS = 30_000;

/** Long enough for a fallback poll to have delivered anything extra (duplicates, stray records). */
const SETTLE_MS = 1_200;

/**
 * Behaviour every LogStore adapter must have. The store is shared by all tests and may hold
 * other data: every test works in streams under its own random prefix and reads globally only
 * relative to the head it observed first.
 */
export function describeLogStoreConformance(name: string, factory: LogStoreFactory): void {
  describe(`LogStore conformance: ${name}`, () => {
    let store: LogStore;
    let teardown: (() => Promise<void>) | undefined;
    let prefix: string;
    let collectors: Collector[] = [];

    const stream = (suffix: string) => `${prefix}-${suffix}`;
    const subscribe = (...args: Parameters<LogStore['subscribe']>) => {
      const collector = collect(store, ...args);
      collectors.push(collector);
      return collector;
    };
    const ours = (records: StoredRecord[]) => records.filter((record) => record.streamId.startsWith(`${prefix}-`));
    const ids = (records: { recordId: string }[]) => records.map((record) => record.recordId);

    beforeAll(async () => {
      ({ store, teardown } = await factory());
    }, TIMEOUT_MS);
    afterAll(async () => {
      await teardown?.();
    }, TIMEOUT_MS);
    beforeEach(() => {
      prefix = `conf${randomUUID().slice(0, 8)}`;
    });
    afterEach(() => {
      for (const collector of collectors) {
        collector.subscription.unsubscribe();
        expect(collector.errors).toEqual([]);
      }
      collectors = [];
    });

    describe('append and readStream', () => {
      it(
        'assigns revisions from 0 and increasing positions',
        async () => {
          const records = [newRecord({ a: 1 }), newRecord({ b: [1, 2] }), newRecord(null)];
          const result = await store.append(stream('s'), records, { expectedRevision: 'no_stream' });

          expect(result).toMatchObject({ nextExpectedRevision: 2, idempotentRetry: false });
          const stored = await store.readStream(stream('s'));
          expectStored(stored, stream('s'), records, 0);
          expect(result.position).toBe(stored[2]!.position);
        },
        TIMEOUT_MS,
      );

      it(
        'continues revisions across appends',
        async () => {
          const first = newRecords(2);
          const second = newRecords(3);
          await store.append(stream('s'), first, { expectedRevision: 'no_stream' });
          const result = await store.append(stream('s'), second, { expectedRevision: 1 });

          expect(result.nextExpectedRevision).toBe(4);
          expectStored(await store.readStream(stream('s')), stream('s'), [...first, ...second], 0);
        },
        TIMEOUT_MS,
      );

      it(
        'reads from a revision, at most maxCount records',
        async () => {
          const records = newRecords(6);
          await store.append(stream('s'), records, { expectedRevision: 'no_stream' });

          expectStored(await store.readStream(stream('s'), { fromRevision: 2, maxCount: 3 }), stream('s'), records.slice(2, 5), 2);
          expectStored(await store.readStream(stream('s'), { fromRevision: 4 }), stream('s'), records.slice(4), 4);
          expect(await store.readStream(stream('s'), { fromRevision: 6 })).toEqual([]);
        },
        TIMEOUT_MS,
      );

      it(
        'reads long streams completely in revision order',
        async () => {
          const records = newRecords(2_500);
          await store.append(stream('long'), records.slice(0, 1_000), { expectedRevision: 'no_stream' });
          await store.append(stream('long'), records.slice(1_000, 2_000), { expectedRevision: 999 });
          const last = await store.append(stream('long'), records.slice(2_000), { expectedRevision: 1_999 });

          expect(last.nextExpectedRevision).toBe(2_499);
          const stored = await store.readStream(stream('long'));
          expect(stored).toHaveLength(2_500);
          expectStored(stored, stream('long'), records, 0);
        },
        TIMEOUT_MS,
      );

      it(
        'returns nothing for an unknown stream',
        async () => {
          expect(await store.readStream(stream('missing'))).toEqual([]);
        },
        TIMEOUT_MS,
      );

      it(
        'round-trips data, metadata and tags',
        async () => {
          const record = {
            ...newRecord({ text: 'zoë — 記憶 🧠', nested: { list: [1, 'two', null, { deep: true }] }, empty: {}, num: 1.5 }, ['fact:1', 'memory:2']),
            metadata: { commandId: randomUUID(), recordedAt: '2025-01-02T03:04:05.678Z', actor: null, reason: 'because' },
          };
          await store.append(stream('s'), [record], { expectedRevision: 'any' });
          expectStored(await store.readStream(stream('s')), stream('s'), [record], 0);
        },
        TIMEOUT_MS,
      );

      it(
        'readStreamContent reads what readStream reads, without what the store assigned',
        async () => {
          const records = [newRecord({ a: 1 }, ['fact:1']), newRecord({ b: 'zoë' }), newRecord(null, ['fact:1', 'fact:2'])];
          await store.append(stream('s'), records, { expectedRevision: 'no_stream' });
          const content = ({ type, data, metadata }: NewRecord) => ({ type, data, metadata });
          expect(await store.readStreamContent(stream('s'))).toEqual(records.map(content));
          expect(await store.readStreamContent(stream('s'), 1)).toEqual((await store.readStream(stream('s'), { fromRevision: 1 })).map(content));
          expect(await store.readStreamContent(stream('s'), 3)).toEqual([]);
          expect(await store.readStreamContent(stream('s'), 1, 1)).toEqual([content(records[1]!)]);
          expect(await store.readStreamContent(stream('s'), 0, 2)).toEqual(records.slice(0, 2).map(content));
          expect(await store.readStreamContent(stream('nothing-here'))).toEqual([]);
        },
        TIMEOUT_MS,
      );

      it(
        'rejects an empty batch',
        async () => {
          await expect(store.append(stream('s'), [], { expectedRevision: 'any' })).rejects.toThrow();
          expect(await store.readStream(stream('s'))).toEqual([]);
        },
        TIMEOUT_MS,
      );
    });

    describe('expected revision', () => {
      const expectWrongRevision = async (promise: Promise<unknown>, streamId: string, expected: unknown, actual: number) => {
        const error = await promise.then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(error).toBeInstanceOf(WrongExpectedRevisionError);
        expect(error).toMatchObject({ streamId, expected, actual });
      };

      it(
        "'no_stream' succeeds only while the stream is empty",
        async () => {
          await store.append(stream('s'), newRecords(2), { expectedRevision: 'no_stream' });
          await expectWrongRevision(store.append(stream('s'), newRecords(1), { expectedRevision: 'no_stream' }), stream('s'), 'no_stream', 1);
          expect(await store.readStream(stream('s'))).toHaveLength(2);
        },
        TIMEOUT_MS,
      );

      it(
        'a number must equal the current revision (-1 for an empty stream)',
        async () => {
          await expectWrongRevision(store.append(stream('s'), newRecords(1), { expectedRevision: 0 }), stream('s'), 0, -1);
          await store.append(stream('s'), newRecords(1), { expectedRevision: -1 });
          await store.append(stream('s'), newRecords(2), { expectedRevision: 0 });
          await expectWrongRevision(store.append(stream('s'), newRecords(1), { expectedRevision: 1 }), stream('s'), 1, 2);
          await expectWrongRevision(store.append(stream('s'), newRecords(1), { expectedRevision: 5 }), stream('s'), 5, 2);
          expect((await store.readStream(stream('s'))).map((e) => e.revision)).toEqual([0, 1, 2]);
        },
        TIMEOUT_MS,
      );

      it(
        "'any' appends to new and existing streams",
        async () => {
          expect((await store.append(stream('s'), newRecords(1), { expectedRevision: 'any' })).nextExpectedRevision).toBe(0);
          expect((await store.append(stream('s'), newRecords(2), { expectedRevision: 'any' })).nextExpectedRevision).toBe(2);
        },
        TIMEOUT_MS,
      );

      it.each([
        ['an existing stream', 1 as const],
        ['a new stream', 'no_stream' as const],
      ])(
        'exactly one of concurrent appends with the same expected revision wins (%s)',
        async (_, expectedRevision) => {
          if (expectedRevision !== 'no_stream') await store.append(stream('s'), newRecords(2), { expectedRevision: 'no_stream' });
          const attempts = Array.from({ length: 8 }, () => newRecords(3));

          const outcomes = await Promise.allSettled(attempts.map((records) => store.append(stream('s'), records, { expectedRevision })));

          const winners = outcomes.flatMap((outcome, index) => (outcome.status === 'fulfilled' ? [index] : []));
          expect(winners).toHaveLength(1);
          for (const outcome of outcomes) {
            if (outcome.status === 'rejected') expect(outcome.reason).toBeInstanceOf(WrongExpectedRevisionError);
          }
          const stored = await store.readStream(stream('s'));
          expect(ids(stored.slice(-3))).toEqual(ids(attempts[winners[0]!]!));
          expect(stored).toHaveLength(expectedRevision === 'no_stream' ? 3 : 5);
        },
        TIMEOUT_MS,
      );
    });

    describe('idempotency', () => {
      it(
        'a retry with the same record ids returns the original result and writes nothing',
        async () => {
          const records = newRecords(2);
          const original = await store.append(stream('s'), records, { expectedRevision: 'no_stream' });

          const retry = await store.append(stream('s'), records, { expectedRevision: 'no_stream' });

          expect(retry).toEqual({ ...original, idempotentRetry: true });
          expect(await store.readStream(stream('s'))).toHaveLength(2);
        },
        TIMEOUT_MS,
      );

      it(
        'a retry succeeds even when its expected revision is stale by now',
        async () => {
          const records = newRecords(2);
          const original = await store.append(stream('s'), records, { expectedRevision: -1 });
          await store.append(stream('s'), newRecords(3), { expectedRevision: 1 });

          const retry = await store.append(stream('s'), records, { expectedRevision: -1 });

          expect(retry).toEqual({ nextExpectedRevision: 4, position: original.position, idempotentRetry: true });
          expect(await store.append(stream('s'), records, { expectedRevision: 'any' })).toEqual(retry);
          expect(await store.readStream(stream('s'))).toHaveLength(5);
        },
        TIMEOUT_MS,
      );

      it(
        'a batch that only partly repeats written records is rejected',
        async () => {
          const records = newRecords(2);
          await store.append(stream('s'), records, { expectedRevision: 'no_stream' });

          await expect(store.append(stream('s'), [records[1]!, newRecord()], { expectedRevision: 1 })).rejects.toBeInstanceOf(
            IdempotencyConflictError,
          );
          await expect(store.append(stream('s'), [records[0]!, newRecord()], { expectedRevision: 'any' })).rejects.toBeInstanceOf(
            IdempotencyConflictError,
          );
          expect(await store.readStream(stream('s'))).toHaveLength(2);
        },
        TIMEOUT_MS,
      );

      it(
        'the same record id in another stream is a different record',
        async () => {
          const record = newRecord();
          await store.append(stream('a'), [record], { expectedRevision: 'no_stream' });
          const other = await store.append(stream('b'), [record], { expectedRevision: 'no_stream' });
          expect(other.idempotentRetry).toBe(false);
        },
        TIMEOUT_MS,
      );
    });

    describe('readAll and headPosition', () => {
      it(
        'returns records after a position in log order, pages and filters by stream prefix',
        async () => {
          const start = await store.headPosition();
          const written = [];
          for (let round = 0; round < 3; round++) {
            for (const suffix of ['a-1', 'b-1', 'a-2']) {
              const records = newRecords(2);
              await store.append(stream(suffix), records, { expectedRevision: 'any' });
              written.push(...records.map((record) => ({ ...record, streamId: stream(suffix) })));
            }
          }

          const all = await eventually(
            async () => ours(await store.readAll({ fromPosition: start, maxCount: 1_000 })),
            (records) => records.length >= written.length,
          );
          expect(ids(all)).toEqual(ids(written));
          expect(all.map((record) => record.streamId)).toEqual(written.map((record) => record.streamId));
          expectStrictlyIncreasing(all.map((record) => record.position));
          expect(all.every((record) => record.position > start)).toBe(true);

          const paged: StoredRecord[] = [];
          for (let from = start; ;) {
            const page = await store.readAll({ fromPosition: from, maxCount: 4, streamPrefix: `${prefix}-` });
            expect(page.length).toBeLessThanOrEqual(4);
            if (page.length === 0) break;
            paged.push(...page);
            from = page[page.length - 1]!.position;
          }
          expect(ids(paged)).toEqual(ids(all));

          const onlyA = await store.readAll({ fromPosition: start, maxCount: 1_000, streamPrefix: stream('a-') });
          expect(ids(onlyA)).toEqual(ids(written.filter((record) => record.streamId.startsWith(stream('a-')))));

          const afterFirst = await store.readAll({ fromPosition: all[0]!.position, maxCount: 1_000, streamPrefix: `${prefix}-` });
          expect(ids(afterFirst)).toEqual(ids(all.slice(1)));
        },
        TIMEOUT_MS,
      );

      it(
        'readAllContent reads what readAll reads, without ids, revisions and tags',
        async () => {
          const start = await store.headPosition();
          await store.append(stream('a-1'), [newRecord({ x: 1 }, ['fact:1']), newRecord(null)], { expectedRevision: 'any' });
          await store.append(stream('b-1'), [newRecord({ y: 'zoë' })], { expectedRevision: 'any' });
          const content = ({ streamId, position, type, data, metadata }: StoredRecord) => ({ streamId, position, type, data, metadata });
          for (const options of [
            { fromPosition: start, maxCount: 1_000, streamPrefix: `${prefix}-` },
            { fromPosition: start, maxCount: 2, streamPrefix: stream('a-') },
            { fromPosition: start + 1, maxCount: 1_000, streamPrefix: stream('b-') },
          ]) {
            const full = await eventually(
              async () => await store.readAll(options),
              (records) => records.length >= Math.min(options.maxCount, 3),
            );
            expect(await store.readAllContent(options)).toEqual(full.map(content));
          }
          await expect(store.readAllContent({ fromPosition: start, maxCount: 0 })).rejects.toThrow(RangeError);
        },
        TIMEOUT_MS,
      );

      it(
        'headPosition is the position of the last committed record',
        async () => {
          const before = await store.headPosition();
          expect(before).toBeGreaterThanOrEqual(0);
          const result = await store.append(stream('s'), newRecords(3), { expectedRevision: 'no_stream' });

          expect(result.position).toBeGreaterThan(before);
          expect(
            await eventually(
              () => store.headPosition(),
              (head) => head >= result.position,
            ),
          ).toBe(result.position);
          expect(await store.readAll({ fromPosition: result.position, maxCount: 10, streamPrefix: `${prefix}-` })).toEqual([]);
        },
        TIMEOUT_MS,
      );

      it(
        'streamPosition is the position of the stream\u2019s last record, 0 for an empty stream',
        async () => {
          expect(await store.streamPosition(stream('none'))).toBe(0);
          await store.append(stream('a'), newRecords(2), { expectedRevision: 'no_stream' });
          const b = await store.append(stream('b'), newRecords(1), { expectedRevision: 'no_stream' });
          expect(await store.streamPosition(stream('a'))).toBeLessThan(b.position);
          const a = await store.append(stream('a'), newRecords(3), { expectedRevision: 1 });
          expect(await store.streamPosition(stream('a'))).toBe(a.position);
          expect(await store.streamPosition(stream('b'))).toBe(b.position);
          const [last] = await store.readStream(stream('a'), { fromRevision: 4 });
          expect(last!.position).toBe(a.position);
        },
        TIMEOUT_MS,
      );

      it(
        'streamHeads lists each non-empty stream under a prefix with its last record, sorted by stream id',
        async () => {
          expect(await store.streamHeads(`${prefix}-`)).toEqual([]);
          const b1 = newRecords(2);
          await store.append(stream('m-b'), b1, { expectedRevision: 'no_stream' });
          const a = await store.append(stream('m-a'), newRecords(1), { expectedRevision: 'no_stream' });
          const b2 = [newRecord({ last: true })];
          const b = await store.append(stream('m-b'), b2, { expectedRevision: 1 });
          // 'B' sorts before 'a' in code unit order, whatever the database's collation says.
          const upper = await store.append(stream('m-B'), newRecords(3), { expectedRevision: 'no_stream' });
          await store.append(stream('other'), newRecords(1), { expectedRevision: 'no_stream' });

          const heads = await store.streamHeads(stream('m-'));
          expect(heads).toEqual([
            { streamId: stream('m-B'), revision: 2, position: upper.position, metadata: expect.anything() },
            { streamId: stream('m-a'), revision: 0, position: a.position, metadata: expect.anything() },
            { streamId: stream('m-b'), revision: 2, position: b.position, metadata: b2[0]!.metadata },
          ]);
          expect(heads.map((head) => head.position)).toEqual(
            await Promise.all([stream('m-B'), stream('m-a'), stream('m-b')].map((id) => store.streamPosition(id))),
          );
          expect((await store.streamHeads(`${prefix}-`)).map((head) => head.streamId)).toEqual([
            stream('m-B'),
            stream('m-a'),
            stream('m-b'),
            stream('other'),
          ]);
          expect(await store.streamHeads(stream('none-'))).toEqual([]);
        },
        TIMEOUT_MS,
      );

      it(
        'highestPosition is at least the last appended position, right after the append',
        async () => {
          const result = await store.append(stream('s'), newRecords(2), { expectedRevision: 'no_stream' });
          expect(await store.highestPosition()).toBeGreaterThanOrEqual(result.position);
          expect(await store.highestPosition()).toBeGreaterThanOrEqual(await store.headPosition());
        },
        TIMEOUT_MS,
      );
    });

    describe('readByTag', () => {
      it(
        'returns only records carrying the tag, in log order, across streams',
        async () => {
          const tag = `${prefix}-fact:1`;
          const other = `${prefix}-fact:2`;
          const e1 = newRecord({ n: 1 }, [tag]);
          const e2 = newRecord({ n: 2 }, [other]);
          const e3 = newRecord({ n: 3 }, [tag, other]);
          const e4 = newRecord({ n: 4 });
          const e5 = newRecord({ n: 5 }, [tag]);
          await store.append(stream('a'), [e1, e2], { expectedRevision: 'no_stream' });
          await store.append(stream('b'), [e3, e4], { expectedRevision: 'no_stream' });
          await store.append(stream('a'), [e5], { expectedRevision: 1 });

          const tagged = await store.readByTag(tag);
          expect(ids(tagged)).toEqual(ids([e1, e3, e5]));
          expect(tagged.map((record) => [record.streamId, record.revision])).toEqual([
            [stream('a'), 0],
            [stream('b'), 0],
            [stream('a'), 2],
          ]);
          expectStrictlyIncreasing(tagged.map((record) => record.position));
          expect(tagged[1]!.tags).toEqual([tag, other]);
          expect(ids(await store.readByTag(other))).toEqual(ids([e2, e3]));
          expect(await store.readByTag(`${prefix}-unknown`)).toEqual([]);
        },
        TIMEOUT_MS,
      );
    });

    describe('deleteStream', () => {
      it(
        'removes the stream and its tag entries from every read; other streams keep theirs',
        async () => {
          const start = await store.headPosition();
          const tag = `${prefix}-fact:1`;
          const doomed = [newRecord({ n: 0 }, [tag]), newRecord({ n: 1 }), newRecord({ n: 2 }, [tag])];
          const kept = newRecord({ n: 3 }, [tag]);
          await store.append(stream('gone'), doomed, { expectedRevision: 'no_stream' });
          const keptAt = await store.append(stream('kept'), [kept], { expectedRevision: 'no_stream' });
          const written = await store.readStream(stream('gone'));

          expect(await store.deleteStream(stream('gone'))).toEqual({ records: 3, position: written[2]!.position });

          expect(await store.readStream(stream('gone'))).toEqual([]);
          expect(await store.readStreamContent(stream('gone'))).toEqual([]);
          expect(await store.streamPosition(stream('gone'))).toBe(0);
          expect((await store.streamHeads(`${prefix}-`)).map((head) => head.streamId)).toEqual([stream('kept')]);
          expect(ids(await store.readByTag(tag))).toEqual(ids([kept]));
          const all = await eventually(
            async () => ours(await store.readAll({ fromPosition: start, maxCount: 1_000 })),
            (records) => records.length >= 1,
          );
          expect(ids(all)).toEqual(ids([kept]));
          expect((await store.readAllContent({ fromPosition: start, maxCount: 1_000, streamPrefix: `${prefix}-` })).map((c) => c.data)).toEqual([
            { n: 3 },
          ]);
          const { received } = subscribe({ fromPosition: start, streamPrefix: `${prefix}-` });
          await eventually(
            () => received,
            (r) => r.length >= 1,
          );
          await sleep(SETTLE_MS);
          expect(ids(received)).toEqual(ids([kept]));
          expect(received[0]!.position).toBe(keptAt.position);
          // Nothing left to delete: idempotent, and an unknown stream is no error.
          expect(await store.deleteStream(stream('gone'))).toEqual({ records: 0, position: 0 });
          expect(await store.deleteStream(stream('never'))).toEqual({ records: 0, position: 0 });
        },
        TIMEOUT_MS,
      );

      it(
        'leaves an empty stream: appends start it again from revision 0, and its old record ids are new again',
        async () => {
          const tag = `${prefix}-fact:2`;
          const first = [newRecord({ n: 0 }, [tag]), newRecord({ n: 1 })];
          const before = await store.append(stream('s'), first, { expectedRevision: 'no_stream' });
          await store.deleteStream(stream('s'));

          // The same ids again (an exported log imported into the emptied stream): written, not a retry.
          const again = await store.append(stream('s'), [first[0]!], { expectedRevision: 'no_stream' });
          expect(again).toMatchObject({ nextExpectedRevision: 0, idempotentRetry: false });
          expect(again.position).toBeGreaterThan(before.position);
          const next = await store.append(stream('s'), [newRecord({ n: 2 })], { expectedRevision: 0 });
          expect(next.nextExpectedRevision).toBe(1);
          await expect(store.append(stream('s'), [newRecord()], { expectedRevision: 3 })).rejects.toBeInstanceOf(WrongExpectedRevisionError);

          const stored = await store.readStream(stream('s'));
          expect(stored.map((record) => [record.recordId, record.revision])).toEqual([
            [first[0]!.recordId, 0],
            [stored[1]!.recordId, 1],
          ]);
          expect(await store.readStream(stream('s'), { fromRevision: 1 })).toEqual([stored[1]]);
          expect((await store.readByTag(tag)).map((record) => [record.recordId, record.revision])).toEqual([[first[0]!.recordId, 0]]);
          expect(await store.streamPosition(stream('s'))).toBe(next.position);
          expect(await store.streamHeads(`${prefix}-`)).toEqual([
            { streamId: stream('s'), revision: 1, position: next.position, metadata: expect.anything() },
          ]);
          const all = await eventually(
            async () => await store.readAll({ fromPosition: 0, maxCount: 100_000, streamPrefix: `${prefix}-` }),
            (records) => records.length >= 2,
          );
          expect(all.map((record) => [record.recordId, record.revision])).toEqual(stored.map((record) => [record.recordId, record.revision]));
        },
        TIMEOUT_MS,
      );

      it(
        'appends racing a deletion are deleted with the stream or start it again',
        async () => {
          await store.append(stream('s'), newRecords(2), { expectedRevision: 'no_stream' });
          const racing = Array.from({ length: 6 }, () => store.append(stream('s'), newRecords(1), { expectedRevision: 'any' }));
          const deleted = await store.deleteStream(stream('s'));
          const outcomes = await Promise.allSettled(racing);
          // Whatever the order, every append that succeeded is either deleted or still there, at consecutive revisions from 0.
          const appended = outcomes.filter((o) => o.status === 'fulfilled').length;
          const remaining = await store.readStream(stream('s'));
          expect(deleted.records + remaining.length).toBe(2 + appended);
          expect(remaining.map((record) => record.revision)).toEqual(remaining.map((_, i) => i));
        },
        TIMEOUT_MS,
      );
    });

    describe('subscribe', () => {
      it(
        'catches up, then delivers live records, each once, in order',
        async () => {
          const start = await store.headPosition();
          const before = newRecords(3);
          await store.append(stream('s'), before, { expectedRevision: 'no_stream' });

          const { received } = subscribe({ fromPosition: start, streamPrefix: `${prefix}-` });
          await eventually(
            () => received,
            (r) => r.length >= 3,
          );
          const live = [newRecord(), newRecord()];
          await store.append(stream('s'), [live[0]!], { expectedRevision: 2 });
          await store.append(stream('t'), [live[1]!], { expectedRevision: 'no_stream' });
          await eventually(
            () => received,
            (r) => r.length >= 5,
          );
          await sleep(SETTLE_MS);

          expect(ids(received)).toEqual(ids([...before, ...live]));
          expectStrictlyIncreasing(received.map((record) => record.position));
          expectStored(received.slice(0, 4), stream('s'), [...before, live[0]!], 0);
        },
        TIMEOUT_MS,
      );

      it(
        'starts after the given position',
        async () => {
          const records = newRecords(4);
          await store.append(stream('s'), records, { expectedRevision: 'no_stream' });
          const stored = await store.readStream(stream('s'));

          const { received } = subscribe({ fromPosition: stored[1]!.position, streamPrefix: `${prefix}-` });
          const live = newRecord();
          await store.append(stream('s'), [live], { expectedRevision: 3 });
          await eventually(
            () => received,
            (r) => r.length >= 3,
          );
          await sleep(SETTLE_MS);

          expect(ids(received)).toEqual(ids([records[2]!, records[3]!, live]));
        },
        TIMEOUT_MS,
      );

      it(
        'without a prefix delivers records of all streams',
        async () => {
          const start = await store.headPosition();
          const { received } = subscribe({ fromPosition: start });
          const a = newRecord();
          const b = newRecord();
          await store.append(stream('a'), [a], { expectedRevision: 'no_stream' });
          await store.append(`x${prefix}-other`, [b], { expectedRevision: 'no_stream' });
          await eventually(
            () => received,
            (r) => r.some((record) => record.recordId === b.recordId),
          );
          await sleep(SETTLE_MS);

          expect(ids(received.filter((record) => record.streamId.includes(prefix)))).toEqual(ids([a, b]));
          expectStrictlyIncreasing(received.map((record) => record.position));
        },
        TIMEOUT_MS,
      );

      it(
        'stops delivering after unsubscribe',
        async () => {
          const collector = subscribe({ fromPosition: await store.headPosition(), streamPrefix: `${prefix}-` });
          await store.append(stream('s'), [newRecord()], { expectedRevision: 'no_stream' });
          await eventually(
            () => collector.received,
            (r) => r.length >= 1,
          );

          collector.subscription.unsubscribe();
          await store.append(stream('s'), newRecords(2), { expectedRevision: 0 });
          await sleep(SETTLE_MS);

          expect(collector.received).toHaveLength(1);
        },
        TIMEOUT_MS,
      );
    });
  });
}
