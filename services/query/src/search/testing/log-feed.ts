import { type Instant, type MemoryRecord, type SearchDelta, type SearchFeed, type Watermark, erasureOf, fold, initialState } from '@memotrace/domain';

/**
 * A SearchFeed over in-memory logs (one per memory), answered from the folded
 * domain state: the rows the read models would hold (erased ones with their content
 * null and marked `erased`), so the corpus can be tested without a database, deltas
 * and erasures included.
 */
export class LogSearchFeed implements SearchFeed {
  constructor(private readonly logs: (memoryId: string) => readonly MemoryRecord[]) {}

  async changeMark(memoryId: string): Promise<number> {
    return this.logs(memoryId).length;
  }

  /** The log index of the latest erasure (0: none), as the read models mark it by log position. */
  async erasureMark(memoryId: string): Promise<number> {
    const log = this.logs(memoryId);
    for (let i = log.length - 1; i >= 0; i--) if (erasureOf(log[i]!) !== null) return i + 1;
    return 0;
  }

  async *allItems(memoryId: string): AsyncIterable<SearchDelta> {
    yield this.rows(memoryId, null);
  }

  async itemsSince(memoryId: string, since: Watermark): Promise<SearchDelta> {
    return this.rows(memoryId, since);
  }

  private rows(memoryId: string, since: Watermark | null): SearchDelta {
    const state = fold(this.logs(memoryId));
    const named = namedAt(this.logs(memoryId));
    const numbered = <V>(versions: readonly V[]) => versions.map((v, i) => ({ ...v, versionNo: i + 1 }));
    const facts = [...state.facts.values()].flatMap((f) =>
      numbered(f.versions).map((v) => ({ ...v, factId: f.factId, src: f.src, rel: f.rel, dst: f.dst })),
    );
    const events = [...state.events.values()].flatMap(numbered);
    const episodes = [...state.episodes.values()].flatMap(numbered);
    const times = [
      ...[...facts, ...events, ...episodes].flatMap((v) => [v.recordedFrom, v.recordedTo]),
      ...[...state.mentions.values(), ...state.entities.values()].map((r) => r.recordedFrom),
      // A name given again after an erasure is a record time of its own, unless it is the entity's own
      // record time (erased and named again at that instant): the row shows one time, counted once.
      ...[...state.entities.values()].flatMap((e) => {
        const at = named.get(e.entityId);
        return at !== undefined && at !== e.recordedFrom ? [at] : [];
      }),
      ...state.merges.map((m) => m.recordedAt),
    ];
    const unchangedAt = since !== null && times.filter((t) => t === since.at).length === since.seen;
    const after = (instant: Instant | null) => instant !== null && (since === null || instant > since.at || (instant === since.at && !unchangedAt));
    const changed = (v: { recordedFrom: Instant; recordedTo: Instant | null }) => after(v.recordedFrom) || after(v.recordedTo);
    const msOrNull = (instant: Instant | null) => (instant === null ? null : Date.parse(instant));
    const recorded = (v: { recordedFrom: Instant; recordedTo: Instant | null }) => ({
      recordedFrom: Date.parse(v.recordedFrom),
      recordedTo: msOrNull(v.recordedTo),
    });
    return {
      facts: facts.filter(changed).map((v) => ({ ...v, ...recorded(v), validFrom: Date.parse(v.validFrom), validTo: msOrNull(v.validTo) })),
      events: events
        .filter(changed)
        .map((v) => ({ ...v, ...recorded(v), timeSpan: { from: Date.parse(v.timeSpan.from), to: msOrNull(v.timeSpan.to) } })),
      episodes: episodes
        .filter(changed)
        .map((v) => ({ ...v, ...recorded(v), window: { from: Date.parse(v.window.from), to: msOrNull(v.window.to) } })),
      mentions: [...state.mentions.values()]
        .filter((m) => after(m.recordedFrom))
        .map((m) => ({ ...m, occurredAt: msOrNull(m.occurredAt), recordedFrom: Date.parse(m.recordedFrom) })),
      entities: [...state.entities.values()]
        .filter((e) => after(e.recordedFrom) || after(named.get(e.entityId) ?? null))
        .map((e) => ({ entityId: e.entityId, name: e.name, recordedFrom: e.recordedFrom, namedFrom: named.get(e.entityId) ?? e.recordedFrom })),
      merges: state.merges.map((m, seq) => ({ ...m, seq })).filter((m) => after(m.recordedAt)),
    };
  }
}

/** When each entity named again after an erasure got the name it has (folded record by record: the state keeps no name time). */
function namedAt(log: readonly MemoryRecord[]): Map<string, Instant> {
  const named = new Map<string, Instant>();
  const state = initialState();
  for (const record of log) {
    const erased = new Set([...state.entities.values()].filter((e) => e.name === null).map((e) => e.entityId));
    fold([record], undefined, state);
    for (const entity of state.entities.values()) {
      if (entity.name === null) named.delete(entity.entityId);
      else if (erased.has(entity.entityId)) named.set(entity.entityId, record.meta.recordedAt);
    }
  }
  return named;
}
