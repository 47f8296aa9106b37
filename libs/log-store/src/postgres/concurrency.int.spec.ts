import { WrongExpectedRevisionError, type AppendResult, type ExpectedRevision, type NewRecord, type StoredRecord } from '../port';
import { collect, eventually, newRecord, sleep } from '../testing/helpers';
import { usePostgresStore } from '../testing/postgres-store';
import type { PostgresLogStore } from './postgres-log-store';

/**
 * The read-side guarantee under real concurrency: 8 writers × 5,000 records while one live
 * subscriber runs from position 0. Five writers own a stream each (three with exact expected
 * revisions, two with 'any'); three contend on one shared stream with expected revisions and
 * retry the same batch (same record ids) after every WrongExpectedRevisionError. Commit order
 * differs from position order all the time here, which is exactly when a naive
 * "read after the last position I saw" reader skips records.
 */
const WRITERS = 8;
const EVENTS_PER_WRITER = 5_000;
const BATCH = 50;
const SHARED_WRITERS = new Set([5, 6, 7]);
const ANY_WRITERS = new Set([3, 4]);
const SHARED_STREAM = 'shared';
const TOTAL = WRITERS * EVENTS_PER_WRITER;
/** Longer than the store's fallback poll (500 ms): time for a duplicate or stray delivery to show. */
const SETTLE_MS = 1_200;

jest.setTimeout(120_000);

interface Committed {
  writer: number;
  streamId: string;
  records: NewRecord[];
  result: AppendResult;
}

describe('PostgresLogStore under concurrent writers', () => {
  const opened = usePostgresStore();

  it(`a live subscriber from 0 receives every one of ${TOTAL} committed records exactly once, in position order`, async () => {
    const { store } = opened;
    const collector = collect(store, { fromPosition: 0 });
    const committed: Committed[] = [];
    let conflicts = 0;

    const writer = async (w: number) => {
      const shared = SHARED_WRITERS.has(w);
      const streamId = shared ? SHARED_STREAM : `own-${w}`;
      let revision = -1; // this writer's belief about the stream's revision
      for (let batch = 0; batch < EVENTS_PER_WRITER / BATCH; batch++) {
        // Every 5th record is tagged: the tag index is written in the same statement.
        const records = Array.from({ length: BATCH }, (_, i) => newRecord({ w, batch, i }, i % 5 === 0 ? [`tag-${w}`] : undefined));
        for (;;) {
          const expectedRevision: ExpectedRevision = ANY_WRITERS.has(w) ? 'any' : revision === -1 ? 'no_stream' : revision;
          try {
            const result = await store.append(streamId, records, { expectedRevision });
            expect(result.idempotentRetry).toBe(false);
            committed.push({ writer: w, streamId, records, result });
            revision = result.nextExpectedRevision;
            break;
          } catch (error) {
            if (!(shared && error instanceof WrongExpectedRevisionError)) throw error;
            conflicts++;
            revision = error.actual; // retry the same records (same ids) at the revision we were told
          }
        }
      }
    };

    await Promise.all(Array.from({ length: WRITERS }, (_, w) => writer(w)));
    await eventually(
      () => collector.received,
      (received) => received.length >= TOTAL,
      45_000,
    );
    await sleep(SETTLE_MS);
    collector.subscription.unsubscribe();

    expect(collector.errors).toEqual([]);
    // The shared stream really was contended, so the retry path ran.
    expect(conflicts).toBeGreaterThan(0);
    expect(committed).toHaveLength(TOTAL / BATCH);

    // Exactly once: every committed record id, no other, no duplicate.
    const received = collector.received;
    const committedIds = committed.flatMap((c) => c.records.map((record) => record.recordId));
    expect(new Set(committedIds).size).toBe(TOTAL);
    expect(received.length).toBe(TOTAL); // a number, not 40,000 records, when it fails
    const receivedIds = new Set(received.map((record) => record.recordId));
    expect(receivedIds.size).toBe(TOTAL);
    expect(committedIds.filter((id) => !receivedIds.has(id)).slice(0, 10)).toEqual([]);

    // Strictly increasing positions (one assertion for 40,000 values: report the first offender).
    const firstDisorder = received.findIndex((record, index) => index > 0 && record.position <= received[index - 1]!.position);
    expect(firstDisorder).toBe(-1);

    // The subscription saw exactly what a reader of the whole log sees.
    const logged = await readWholeLog(store);
    expect(firstDifference(logged.map(fingerprint), received.map(fingerprint))).toBeNull();

    // Each append's result points at its own last record; each batch is one contiguous run of revisions.
    const byId = new Map(received.map((record) => [record.recordId, record]));
    for (const { streamId, records, result } of committed) {
      const stored = records.map((record) => byId.get(record.recordId)!);
      expect(stored.every((record) => record.streamId === streamId)).toBe(true);
      expect(stored.map((record) => record.revision)).toEqual(records.map((_, i) => result.nextExpectedRevision - BATCH + 1 + i));
      expect(stored[BATCH - 1]!.position).toBe(result.position);
    }

    // Streams: contiguous revisions from 0; the shared one holds all three contenders' records.
    for (const streamId of [SHARED_STREAM, ...[0, 1, 2, 3, 4].map((w) => `own-${w}`)]) {
      const records = await store.readStream(streamId);
      expect(records.map((record) => record.revision)).toEqual(records.map((_, i) => i));
      expect(records).toHaveLength(streamId === SHARED_STREAM ? SHARED_WRITERS.size * EVENTS_PER_WRITER : EVENTS_PER_WRITER);
    }
    expect(await store.readByTag('tag-6')).toHaveLength(EVENTS_PER_WRITER / 5);
    expect(await store.headPosition()).toBe(received[received.length - 1]!.position);
  });
});

async function readWholeLog(store: PostgresLogStore): Promise<StoredRecord[]> {
  const records: StoredRecord[] = [];
  for (let from = 0; ;) {
    const page = await store.readAll({ fromPosition: from, maxCount: 5_000 });
    if (page.length === 0) return records;
    records.push(...page);
    from = page[page.length - 1]!.position;
  }
}

/** null when equal; otherwise where and how they first differ (a readable failure for 40,000 rows). */
function firstDifference(
  a: string[],
  b: string[],
): { index: number; a: string | undefined; b: string | undefined; lengths: [number, number] } | null {
  const length = Math.max(a.length, b.length);
  for (let index = 0; index < length; index++) {
    if (a[index] !== b[index]) return { index, a: a[index], b: b[index], lengths: [a.length, b.length] };
  }
  return null;
}

const fingerprint = (record: StoredRecord) => `${record.position}:${record.recordId}:${record.streamId}:${record.revision}`;
