import { decideBatch, initialState } from '@memotrace/domain';
import type { LogStore, StoredRecord } from '@memotrace/log-store';
import { memoryStreamId, toMemoryRecord } from '@memotrace/memory-log';

/**
 * In-memory memory logs of mentions, as `RECORD_MENTION` decides them, for replay tests: a store
 * that answers `readStreamContent` and records how many events each read returned.
 */
export function fakeMemoryLogs() {
  const streams = new Map<string, StoredRecord[]>();
  const fetched: number[] = [];
  const append = (memoryId: string, n: number, recordedAt = '2024-01-01T00:00:00.000Z') => {
    const streamId = memoryStreamId(memoryId);
    const events = streams.get(streamId) ?? [];
    for (let i = 0; i < n; i++) {
      const revision = events.length;
      const mentionId = `m${String(revision).padStart(3, '0')}`;
      const command = { op: 'RECORD_MENTION', commandId: `c${revision}`, recordedAt, mentionId, docId: 'd', text: 't' } as const;
      const [record] = decideBatch(memoryId, initialState(), [command], recordedAt).records;
      events.push({
        streamId,
        revision,
        position: revision + 1,
        recordId: `${streamId}-${revision}`,
        type: record!.type,
        data: record!.data,
        metadata: { commandId: `c${revision}`, recordedAt, actor: null, reason: null },
      });
    }
    streams.set(streamId, events);
  };
  const store = {
    async readStreamContent(streamId: string, fromRevision = 0) {
      const page = (streams.get(streamId) ?? []).slice(fromRevision);
      fetched.push(page.length);
      return page;
    },
  } as unknown as LogStore;
  const log = (memoryId: string) => (streams.get(memoryStreamId(memoryId)) ?? []).map(toMemoryRecord);
  return { store, append, fetched, log };
}
