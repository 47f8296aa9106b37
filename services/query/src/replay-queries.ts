import {
  type Cut,
  type FactFilter,
  type Instant,
  type MemoryEvent,
  type MemoryQueries,
  type MemoryState,
  changesBetween,
  entityAt,
  episodesAt,
  eventsAt,
  factHistory,
  factsAt,
  fold,
  foldBefore,
  mentionsAt,
} from '@memotrace/domain';
import type { EventStore } from '@memotrace/event-store';
import { memoryStreamId, toMemoryEvent } from '@memotrace/memory-log';

/**
 * `consistency=replay`: every answer folds the memory's log up to the cut's
 * record time, bypassing the read models entirely.
 */
export class ReplayMemoryQueries implements MemoryQueries {
  constructor(private readonly store: EventStore) {}

  async facts(memoryId: string, cut: Cut, filter: FactFilter) {
    return factsAt(await this.foldUntil(memoryId, cut.recordedAt), cut.validAt, filter);
  }

  async history(memoryId: string, factId: string, recordedAt?: Instant) {
    return factHistory(await this.foldUntil(memoryId, recordedAt), factId);
  }

  async entity(memoryId: string, entityId: string, recordedAt: Instant) {
    return entityAt(await this.foldUntil(memoryId, recordedAt), entityId);
  }

  async events(memoryId: string, cut: Cut) {
    return eventsAt(await this.foldUntil(memoryId, cut.recordedAt), cut.validAt);
  }

  async episodes(memoryId: string, cut: Cut) {
    return episodesAt(await this.foldUntil(memoryId, cut.recordedAt), cut.validAt);
  }

  async mentions(memoryId: string, recordedAt: Instant) {
    return mentionsAt(await this.foldUntil(memoryId, recordedAt));
  }

  async changes(memoryId: string, from: Instant, to: Instant) {
    return changesBetween(foldBefore(await this.log(memoryId), to), from, to);
  }

  private async foldUntil(memoryId: string, recordedAt?: Instant): Promise<MemoryState> {
    return fold(await this.log(memoryId), recordedAt);
  }

  private async log(memoryId: string): Promise<MemoryEvent[]> {
    return (await this.store.readStream(memoryStreamId(memoryId))).map(toMemoryEvent);
  }
}
