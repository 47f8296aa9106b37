import {
  type Cut,
  type FactFilter,
  type Instant,
  type MemoryEvent,
  type MemoryQueries,
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

/** The read port over in-memory logs, answered by the domain's own cut functions (what replay does). */
export class LogQueries implements MemoryQueries {
  constructor(private readonly logs: (memoryId: string) => readonly MemoryEvent[]) {}

  private at(memoryId: string, recordedAt?: Instant) {
    return fold(this.logs(memoryId), recordedAt);
  }

  async facts(memoryId: string, cut: Cut, filter: FactFilter) {
    return factsAt(this.at(memoryId, cut.recordedAt), cut.validAt, filter);
  }
  async history(memoryId: string, factId: string, recordedAt?: Instant) {
    return factHistory(this.at(memoryId, recordedAt), factId);
  }
  async entity(memoryId: string, entityId: string, recordedAt: Instant) {
    return entityAt(this.at(memoryId, recordedAt), entityId);
  }
  async events(memoryId: string, cut: Cut) {
    return eventsAt(this.at(memoryId, cut.recordedAt), cut.validAt);
  }
  async episodes(memoryId: string, cut: Cut) {
    return episodesAt(this.at(memoryId, cut.recordedAt), cut.validAt);
  }
  async mentions(memoryId: string, recordedAt: Instant) {
    return mentionsAt(this.at(memoryId, recordedAt));
  }
  async changes(memoryId: string, from: Instant, to: Instant) {
    return changesBetween(foldBefore(this.logs(memoryId), to), from, to);
  }
}
