import { type Instant, type MemoryEvent, type SearchDelta, type SearchFeed, type Watermark, fold } from '@memotrace/domain';

/**
 * A SearchFeed over in-memory logs (one per memory), answered from the folded
 * domain state: the rows the read models would hold, so the corpus can be tested
 * without a database, deltas included.
 */
export class LogSearchFeed implements SearchFeed {
  constructor(private readonly logs: (memoryId: string) => readonly MemoryEvent[]) {}

  async changeMark(memoryId: string): Promise<number> {
    return this.logs(memoryId).length;
  }

  async *allItems(memoryId: string): AsyncIterable<SearchDelta> {
    yield this.rows(memoryId, null);
  }

  async itemsSince(memoryId: string, since: Watermark): Promise<SearchDelta> {
    return this.rows(memoryId, since);
  }

  private rows(memoryId: string, since: Watermark | null): SearchDelta {
    const state = fold(this.logs(memoryId));
    const versions = [...state.facts.values()].flatMap((f) => f.versions).concat([...state.events.values(), ...state.episodes.values()].flat() as never[]);
    const times = [
      ...versions.flatMap((v) => [v.recordedFrom, v.recordedTo]),
      ...[...state.mentions.values(), ...state.entities.values()].map((r) => r.recordedFrom),
      ...state.merges.map((m) => m.recordedAt),
    ];
    const unchangedAt = since !== null && times.filter((t) => t === since.at).length === since.seen;
    const after = (instant: Instant | null) => instant !== null && (since === null || instant > since.at || (instant === since.at && !unchangedAt));
    const changed = (v: { recordedFrom: Instant; recordedTo: Instant | null }) => after(v.recordedFrom) || after(v.recordedTo);
    return {
      facts: [...state.facts.values()].flatMap((f) =>
        f.versions
          .map((v, i) => ({ factId: f.factId, versionNo: i + 1, src: f.src, rel: f.rel, dst: f.dst, validFrom: v.validFrom, validTo: v.validTo, recordedFrom: v.recordedFrom, recordedTo: v.recordedTo, evidence: v.evidence }))
          .filter(changed),
      ),
      events: [...state.events.values()].flatMap((versions) =>
        versions
          .map((v, i) => ({ eventId: v.eventId, versionNo: i + 1, summary: v.summary, participants: v.participants, includesFacts: v.includesFacts, timeSpan: v.timeSpan, recordedFrom: v.recordedFrom, recordedTo: v.recordedTo }))
          .filter(changed),
      ),
      episodes: [...state.episodes.values()].flatMap((versions) =>
        versions.map((v, i) => ({ episodeId: v.episodeId, versionNo: i + 1, title: v.title, window: v.window, events: v.events, recordedFrom: v.recordedFrom, recordedTo: v.recordedTo })).filter(changed),
      ),
      mentions: [...state.mentions.values()].filter((m) => after(m.recordedFrom)),
      entities: [...state.entities.values()].filter((e) => after(e.recordedFrom)).map((e) => ({ entityId: e.entityId, name: e.name, recordedFrom: e.recordedFrom })),
      merges: state.merges.map((m, seq) => ({ ...m, seq })).filter((m) => after(m.recordedAt)),
    };
  }
}
