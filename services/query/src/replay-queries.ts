import {
  type Claim,
  type Cut,
  type EntityFilter,
  type EventFilter,
  type FactFilter,
  type Page,
  type Instant,
  type MemoryRecord,
  type MemoryQueries,
  type MemoryState,
  type MentionFilter,
  changeCountsOf,
  changesBetween,
  claimGroundsAt,
  documentMentionsAt,
  entityAt,
  entitiesAt,
  episodesAt,
  topicsAt,
  erasureOf,
  eventsAt,
  factHistory,
  factsAt,
  foldBefore,
  foldForReading,
  initialState,
  mentionAt,
  mentionsAt,
} from '@memotrace/domain';
import type { LogStore } from '@memotrace/log-store';
import { readMemoryLog } from '@memotrace/memory-log';

/** Where replay reads a memory's log. Append-only: a later read extends an earlier one. */
export interface MemoryLogSource {
  read(memoryId: string): Promise<readonly MemoryRecord[]>;
}

/**
 * `consistency=replay`: every answer folds the memory's log up to the cut's
 * record time, bypassing the read models entirely. The service reads the log
 * through a `MemoryLogCache` over the event store; tests may hand in-memory logs.
 */
export class ReplayMemoryQueries implements MemoryQueries {
  /** Whole-log states of recently replayed memories, with how many events each has folded (LRU). */
  private readonly heads = new Map<string, { state: MemoryState; folded: number }>();
  /**
   * The last state folded to a record time before its memory's latest: it never changes (every
   * later command records at or after the latest), so a run of queries at one past cut, such as
   * verify's, folds once.
   */
  private pastCut: { memoryId: string; recordedAt: Instant; log: readonly MemoryRecord[]; length: number; state: MemoryState } | undefined;

  constructor(
    private readonly logs: MemoryLogSource,
    private readonly maxHeads = 8,
  ) {}

  /** Drops what is held of the memory: its log was deleted. */
  forget(memoryId: string): void {
    this.heads.delete(memoryId);
    if (this.pastCut?.memoryId === memoryId) this.pastCut = undefined;
  }

  async facts(memoryId: string, cut: Cut, filter: FactFilter) {
    return factsAt(await this.foldUntil(memoryId, cut.recordedAt), cut.validAt, filter);
  }

  async history(memoryId: string, factId: string, recordedAt?: Instant) {
    return factHistory(await this.foldUntil(memoryId, recordedAt), factId);
  }

  async entity(memoryId: string, entityId: string, recordedAt: Instant) {
    return entityAt(await this.foldUntil(memoryId, recordedAt), entityId);
  }

  async entities(memoryId: string, recordedAt: Instant, filter: EntityFilter) {
    return entitiesAt(await this.foldUntil(memoryId, recordedAt), filter);
  }

  async events(memoryId: string, cut: Cut, filter?: EventFilter) {
    return eventsAt(await this.foldUntil(memoryId, cut.recordedAt), cut.validAt, filter);
  }

  async episodes(memoryId: string, cut: Cut, page?: Page) {
    return episodesAt(await this.foldUntil(memoryId, cut.recordedAt), cut.validAt, page);
  }

  async topics(memoryId: string, cut: Cut, page?: Page) {
    return topicsAt(await this.foldUntil(memoryId, cut.recordedAt), cut.validAt, page);
  }

  async mentions(memoryId: string, recordedAt: Instant, filter?: MentionFilter) {
    return mentionsAt(await this.foldUntil(memoryId, recordedAt), filter);
  }

  async documentMentions(memoryId: string, docId: string, recordedAt: Instant) {
    return documentMentionsAt(await this.foldUntil(memoryId, recordedAt), docId);
  }

  async mention(memoryId: string, mentionId: string, recordedAt: Instant) {
    return mentionAt(await this.foldUntil(memoryId, recordedAt), mentionId);
  }

  async changes(memoryId: string, from: Instant, to: Instant) {
    return changesBetween(foldBefore(await this.log(memoryId), to), from, to);
  }

  async changeCounts(memoryId: string, from: Instant, to: Instant, max: number) {
    return changeCountsOf(await this.changes(memoryId, from, to), max);
  }

  async claimGrounds(memoryId: string, recordedAt: Instant, claims: readonly Claim[]) {
    return claimGroundsAt(await this.foldUntil(memoryId, recordedAt), claims);
  }

  private async foldUntil(memoryId: string, recordedAt?: Instant): Promise<MemoryState> {
    const log = await this.log(memoryId);
    const latest = log[log.length - 1]?.meta.recordedAt;
    if (recordedAt !== undefined && latest !== undefined && recordedAt < latest) {
      // Keyed by the log too: an erasure appended since changes the past cut.
      if (
        this.pastCut?.memoryId !== memoryId ||
        this.pastCut.recordedAt !== recordedAt ||
        this.pastCut.log !== log ||
        this.pastCut.length !== log.length
      )
        this.pastCut = { memoryId, recordedAt, log, length: log.length, state: foldForReading(log, recordedAt) };
      return this.pastCut.state;
    }
    // A cut at or after the latest record time sees the whole log (record time is monotone per
    // memory): fold only what was appended since the cached state (the log is append-only).
    // Callers only read the state.
    let head = this.heads.get(memoryId);
    this.heads.delete(memoryId);
    if (!head || head.folded > log.length) head = { state: initialState(), folded: 0 };
    if (head.folded < log.length) foldForReading(head.folded === 0 ? log : log.slice(head.folded), undefined, head.state);
    head.folded = log.length;
    this.heads.set(memoryId, head);
    for (const id of this.heads.keys()) {
      if (this.heads.size <= this.maxHeads) break;
      this.heads.delete(id);
    }
    return head.state;
  }

  private log(memoryId: string): Promise<readonly MemoryRecord[]> {
    return this.logs.read(memoryId);
  }
}

/**
 * The log is append-only, so a memory's events read once stay valid: each read
 * fetches only the revisions after the cached ones. Reads of one memory run one
 * after another (a read that started while another was fetching would otherwise
 * fetch the whole log again, and verify's concurrent comparisons start many such reads).
 * Bounded by total events held, least recently used memories out.
 */
export class MemoryLogCache implements MemoryLogSource {
  private readonly logs = new Map<string, MemoryRecord[]>();
  /** Per memory, the last read queued; the next one starts when it settles. */
  private readonly queued = new Map<string, Promise<readonly MemoryRecord[]>>();
  /** Bumped by `forget`: a read that started before must not put the old log back. */
  private readonly forgotten = new Map<string, number>();
  private held = 0;

  constructor(
    private readonly store: LogStore,
    private readonly maxEvents = 1_000_000,
  ) {}

  read(memoryId: string): Promise<readonly MemoryRecord[]> {
    const previous = this.queued.get(memoryId);
    const extend = () => this.extend(memoryId);
    // After the previous read settles either way: its failure is its caller's, not this one's.
    const next = previous ? previous.then(extend, extend) : extend();
    this.queued.set(memoryId, next);
    const settled = () => {
      if (this.queued.get(memoryId) === next) this.queued.delete(memoryId);
    };
    next.then(settled, settled);
    return next;
  }

  /** Drops the memory's cached log: it was deleted (and may start again), so it is no longer append-only from here. */
  forget(memoryId: string): void {
    const log = this.logs.get(memoryId);
    if (log) this.held -= log.length;
    this.logs.delete(memoryId);
    this.forgotten.set(memoryId, (this.forgotten.get(memoryId) ?? 0) + 1);
  }

  /** Fetches what was appended since the cached copy and makes the memory the most recently used. */
  private async extend(memoryId: string): Promise<readonly MemoryRecord[]> {
    const generation = this.forgotten.get(memoryId);
    let log = this.logs.get(memoryId) ?? [];
    let appended = await readMemoryLog(this.store, memoryId, log.length);
    if (log.length > 0 && appended.some((record) => erasureOf(record) !== null)) {
      // An erasure changes the past: the records held were opened before their keys were destroyed.
      this.logs.delete(memoryId);
      this.held -= log.length;
      log = [];
      appended = await readMemoryLog(this.store, memoryId, 0);
    }
    // Forgotten while reading: what was read may join the deleted log to the new one; read it afresh.
    if (this.forgotten.get(memoryId) !== generation) return this.extend(memoryId);
    if (this.logs.get(memoryId) === log) {
      this.logs.delete(memoryId); // re-inserted below, as the most recent
      this.held -= log.length;
    }
    for (const event of appended) log.push(event);
    this.logs.set(memoryId, log);
    this.held += log.length;
    for (const [id, events] of this.logs) {
      if (this.held <= this.maxEvents || id === memoryId) break;
      this.logs.delete(id);
      this.held -= events.length;
    }
    return log;
  }
}
