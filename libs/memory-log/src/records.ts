import { type MemoryRecord, declaresRetention, deriveLogRecordId, factIdsOf } from '@memotrace/domain';
import type { RecordContent, LogStore, NewRecord, PositionedRecordContent } from '@memotrace/log-store';

/**
 * How a memory lives in the log: one stream per memory (the consistency boundary:
 * record time is monotone and batches are atomic per memory), and one tag per fact
 * so a fact's audit stream is an index read.
 */
export const MEMORY_STREAM_PREFIX = 'memory-';

export function memoryStreamId(memoryId: string): string {
  return MEMORY_STREAM_PREFIX + memoryId;
}

export function memoryIdOfStream(streamId: string): string | null {
  return streamId.startsWith(MEMORY_STREAM_PREFIX) ? streamId.slice(MEMORY_STREAM_PREFIX.length) : null;
}

export function factTag(memoryId: string, factId: string): string {
  return `fact:${memoryId}:${factId}`;
}

/** The tag of every relation declaration that sets or removes a retention: the memories a retention sweep visits. */
export const RETENTION_TAG = 'retention';

function tagsOf(memoryId: string, record: MemoryRecord): string[] {
  const tags = factIdsOf(record).map((factId) => factTag(memoryId, factId));
  return declaresRetention(record) ? [...tags, RETENTION_TAG] : tags;
}

/** Log records for a decided batch; record ids are derived from (memory, command, index) so a retry is idempotent. */
export function toNewRecords(memoryId: string, records: readonly MemoryRecord[]): NewRecord[] {
  let commandId: string | null = null;
  let index = 0;
  return records.map((record) => {
    index = record.meta.commandId === commandId ? index + 1 : 0;
    commandId = record.meta.commandId;
    return {
      recordId: deriveLogRecordId(memoryId, record.meta.commandId, index),
      type: record.type,
      data: record.data,
      metadata: { ...record.meta },
      tags: tagsOf(memoryId, record),
    };
  });
}

export interface LoggedRecord {
  memoryId: string;
  position: number;
  record: MemoryRecord;
}

/** A memory's log from a revision on, as domain records (contents only: no fold reads ids, positions or tags). */
export async function readMemoryLog(
  store: Pick<LogStore, 'readStreamContent'>,
  memoryId: string,
  fromRevision = 0,
  maxCount?: number,
): Promise<MemoryRecord[]> {
  return (await store.readStreamContent(memoryStreamId(memoryId), fromRevision, maxCount)).map(toMemoryRecord);
}

export function toMemoryRecord(stored: RecordContent): MemoryRecord {
  const { commandId, recordedAt, actor, reason, derivedFrom } = stored.metadata;
  const meta: MemoryRecord['meta'] = { commandId, recordedAt, actor, reason };
  if (derivedFrom !== undefined) meta.derivedFrom = derivedFrom;
  return { type: stored.type, data: stored.data, meta } as MemoryRecord;
}

export function toLoggedRecord(stored: PositionedRecordContent): LoggedRecord | null {
  const memoryId = memoryIdOfStream(stored.streamId);
  return memoryId === null ? null : { memoryId, position: stored.position, record: toMemoryRecord(stored) };
}
