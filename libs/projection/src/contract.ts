import { CHANGE_TYPES, type Change, type ChangeType, type Instant, type MemoryRecord, changesOf } from '@memotrace/domain';
import type { PositionedRecordContent } from '@memotrace/log-store';
import { memoryIdOfStream, toMemoryRecord } from '@memotrace/memory-log';
import type { Pool, PoolClient } from 'pg';

/** One log record as every projection sees it: where it is in the log, when it was recorded, and what it changes. */
export interface ProjectedRecord {
  memoryId: string;
  position: number;
  recordedAt: Instant;
  changes: readonly Change[];
}

/** Null for a record outside the memory streams. */
export function projectedRecordOf(stored: PositionedRecordContent): ProjectedRecord | null {
  const memoryId = memoryIdOfStream(stored.streamId);
  return memoryId === null ? null : toProjectedRecord(memoryId, stored.position, toMemoryRecord(stored));
}

export function toProjectedRecord(memoryId: string, position: number, record: MemoryRecord): ProjectedRecord {
  return { memoryId, position, recordedAt: record.meta.recordedAt, changes: changesOf(record) };
}

/**
 * A view of the log, kept by the runner (`startProjector`): each batch is handled in ONE
 * transaction with the projection's checkpoint, so a batch is applied exactly once and a
 * restart resumes where the last commit ended. A projection whose store is outside that
 * transaction (OpenSearch) makes `handle` idempotent instead.
 */
export interface Projection {
  /** Its checkpoint's name. */
  name: string;
  version: number;
  /** The change types it applies: a batch brings it only these, and only records with one of them. */
  handles: readonly ChangeType[];
  handle(records: readonly ProjectedRecord[], tx: PoolClient): Promise<void>;
  /**
   * Slow work that needs no lock (embedding), run before the transaction: once the transaction
   * holds its checkpoint row lock, every reader's safe head waits for it.
   */
  prepare?(records: readonly ProjectedRecord[], db: Pick<Pool, 'query'>): Promise<void>;
}

/** The records of `records` with a change of `types`, each with only those changes. */
export function recordsFor(records: readonly ProjectedRecord[], types: ReadonlySet<ChangeType>): readonly ProjectedRecord[] {
  if (CHANGE_TYPES.every((type) => types.has(type))) return records.filter((r) => r.changes.length > 0);
  const kept: ProjectedRecord[] = [];
  for (const record of records) {
    const changes = record.changes.filter((c) => types.has(c.change));
    if (changes.length === 0) continue;
    kept.push(changes.length === record.changes.length ? record : { ...record, changes });
  }
  return kept;
}
