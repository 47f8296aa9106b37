import { randomUUID } from 'node:crypto';
import type { Subscription } from 'rxjs';
import type { LogStore, NewRecord, StoredRecord, SubscribeOptions } from '../port';

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function newRecord(data: unknown = { n: 1 }, tags?: string[], type = 'TestEvent'): NewRecord {
  return {
    recordId: randomUUID(),
    type,
    data,
    metadata: { commandId: randomUUID(), recordedAt: new Date().toISOString(), actor: 'conformance', reason: null },
    ...(tags ? { tags } : {}),
  };
}

export const newRecords = (count: number, tags?: string[]) => Array.from({ length: count }, (_, n) => newRecord({ n }, tags));

/**
 * Polls until `done` holds or the timeout passes and returns the last value either way, so the
 * caller's assertion shows the real difference. Needed because a safe-prefix reader may lag
 * briefly behind a commit while any other transaction on the server is still open.
 */
export async function eventually<T>(read: () => Promise<T> | T, done: (value: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await sleep(25);
  }
}

export interface Collector {
  received: StoredRecord[];
  errors: unknown[];
  subscription: Subscription;
}

export function collect(store: LogStore, options: SubscribeOptions): Collector {
  const received: StoredRecord[] = [];
  const errors: unknown[] = [];
  const subscription = store.subscribe(options).subscribe({
    next: (record) => received.push(record),
    error: (error: unknown) => errors.push(error),
  });
  return { received, errors, subscription };
}

/** Asserts that stored records are exactly `written`, in order, with consecutive revisions. */
export function expectStored(stored: StoredRecord[], streamId: string, written: NewRecord[], firstRevision: number): void {
  expect(stored.map((record) => record.recordId)).toEqual(written.map((record) => record.recordId));
  stored.forEach((record, index) => {
    const original = written[index]!;
    expect(record).toMatchObject({ streamId, revision: firstRevision + index, type: original.type, metadata: original.metadata });
    expect(record.data).toEqual(original.data);
    expect(record.tags ?? []).toEqual(original.tags ?? []);
  });
  expectStrictlyIncreasing(stored.map((record) => record.position));
}

export function expectStrictlyIncreasing(values: number[]): void {
  values.forEach((value, index) => {
    expect(Number.isInteger(value)).toBe(true);
    if (index > 0) expect(value).toBeGreaterThan(values[index - 1]!);
  });
}
