import type { Instant } from '@memotrace/domain';

/**
 * Plans the version rows of one batch for a versioned record (fact, event,
 * episode) without a round trip per event: the stored heads are loaded once,
 * the batch's events are applied in log order in memory, and the result is a
 * set of closes of stored versions plus new rows (possibly already closed
 * within the batch). Same semantics as `evolve`: a push closes the open version
 * at `at` and opens the next one at `at`.
 */
export interface StoredHead<C> {
  /** The latest stored version (the only one that can be open). */
  versionNo: number;
  /** Its record end: null while it is open. */
  recordedTo: Instant | null;
  /** Its content, when the caller needs it (facts: identity and retro-corrections). */
  content?: C;
}

export interface VersionRow<C> {
  memoryId: string;
  id: string;
  versionNo: number;
  recordedFrom: Instant;
  recordedTo: Instant | null;
  /** The previous version's record end (null for version 1): the schema's version chain. */
  prevRecordedTo: Instant | null;
  content: C;
}

/** A row planned in this batch, linked to the item's previous planned row (an erasure rewrites them all). */
interface PlannedRow<C> extends VersionRow<C> {
  previous: PlannedRow<C> | null;
}

export interface VersionClose {
  memoryId: string;
  id: string;
  versionNo: number;
  recordedTo: Instant;
}

interface Slot<C> {
  memoryId: string;
  id: string;
  nextVersionNo: number;
  latest: C | undefined;
  /** The open version: a stored one (by number) or a row planned in this batch. */
  open: { stored: number } | { row: VersionRow<C> } | null;
  /** The latest version's record end, once it is closed. */
  latestEnd: Instant | null;
  /** The item's latest row planned in this batch (earlier ones are linked from it). */
  last: PlannedRow<C> | null;
}

export function headKey(memoryId: string, id: string): string {
  return `${memoryId}\u0000${id}`;
}

export class VersionLedger<C> {
  readonly rows: VersionRow<C>[] = [];
  readonly closes: VersionClose[] = [];
  private readonly slots = new Map<string, Slot<C>>();

  constructor(private readonly stored: ReadonlyMap<string, StoredHead<C>>) {}

  /** The latest version's content (planned, or stored when loaded with content); undefined for an unknown record. */
  latest(memoryId: string, id: string): C | undefined {
    return this.slot(memoryId, id)?.latest;
  }

  /** The open version's content, if one is open. */
  openContent(memoryId: string, id: string): C | undefined {
    const slot = this.slot(memoryId, id);
    return slot?.open ? slot.latest : undefined;
  }

  close(memoryId: string, id: string, at: Instant): void {
    const slot = this.slot(memoryId, id);
    if (!slot?.open) return;
    if ('row' in slot.open) slot.open.row.recordedTo = at;
    else this.closes.push({ memoryId, id, versionNo: slot.open.stored, recordedTo: at });
    slot.open = null;
    slot.latestEnd = at;
  }

  /** Closes the open version (if any) at `at` and opens `content` there. */
  push(memoryId: string, id: string, content: C, at: Instant): void {
    this.close(memoryId, id, at);
    let slot = this.slot(memoryId, id);
    if (!slot) {
      slot = { memoryId, id, nextVersionNo: 1, latest: content, open: null, latestEnd: null, last: null };
      this.slots.set(headKey(memoryId, id), slot);
    }
    const row: PlannedRow<C> = {
      memoryId,
      id,
      versionNo: slot.nextVersionNo,
      recordedFrom: at,
      recordedTo: null,
      prevRecordedTo: slot.latestEnd,
      content,
      previous: slot.last,
    };
    this.rows.push(row);
    slot.nextVersionNo += 1;
    slot.latest = content;
    slot.open = { row };
    slot.latestEnd = null;
    slot.last = row;
  }

  /**
   * Rewrites the content of every version of the item known here (its rows planned so far and the
   * latest content), as an erasure does: it changes the past, not only the open version. Stored rows
   * are the writer's to update; versions planned after this call keep their own content.
   */
  rewrite(memoryId: string, id: string, rewrite: (content: C) => C): void {
    const slot = this.slot(memoryId, id);
    if (!slot) return;
    for (let row = slot.last; row !== null; row = row.previous) row.content = rewrite(row.content);
    if (slot.last !== null) slot.latest = slot.last.content;
    else if (slot.latest !== undefined) slot.latest = rewrite(slot.latest);
  }

  private slot(memoryId: string, id: string): Slot<C> | undefined {
    const key = headKey(memoryId, id);
    let slot = this.slots.get(key);
    if (!slot) {
      const head = this.stored.get(key);
      if (!head) return undefined;
      slot = {
        memoryId,
        id,
        nextVersionNo: head.versionNo + 1,
        latest: head.content,
        open: head.recordedTo === null ? { stored: head.versionNo } : null,
        latestEnd: head.recordedTo,
        last: null,
      };
      this.slots.set(key, slot);
    }
    return slot;
  }
}
