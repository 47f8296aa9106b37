import {
  type FactFilter,
  type Instant,
  type MemoryRecord,
  type MemoryQueries,
  type ValidAt,
  changesBetween,
  documentMentionsAt,
  entityAt,
  episodesAt,
  eventsAt,
  factHistory,
  factsAt,
  fold,
  foldBefore,
  isCanonicalInstant,
  mentionAt,
  mentionsAt,
  validityBounds,
} from '@memotrace/domain';

/**
 * The replay path (as the query service's replay answers: fold the log up to the
 * cut, then the domain's cut functions) compared with the SQL answers. Each
 * mismatch names its query, so a failure says which cut disagrees.
 */
export const plusMs = (instant: Instant, ms: number): Instant => new Date(Date.parse(instant) + ms).toISOString();

/** Each instant and the millisecond either side (within the domain's 0000..9999 range): interval ends are where half-open mistakes show. */
export function around(instants: Iterable<Instant>): Instant[] {
  const near = [...instants].flatMap((t) => [plusMs(t, -1), t, plusMs(t, 1)]).filter(isCanonicalInstant);
  return [...new Set(near)].sort();
}

/** Every validity bound the log mentions (fact versions, event spans, episode windows). */
export function validBounds(log: readonly MemoryRecord[]): Instant[] {
  return validityBounds(fold(log));
}

export interface Comparison {
  recordedAts: readonly Instant[];
  validAts: readonly ValidAt[];
  /** Checked at every recordedAt with validAt '*'. */
  filters?: readonly FactFilter[];
  entityIds?: readonly string[];
  /** [from, to) windows for changes(). */
  windows?: readonly [Instant, Instant][];
}

export async function expectSameAsReplay(queries: MemoryQueries, memoryId: string, log: readonly MemoryRecord[], plan: Comparison): Promise<number> {
  let compared = 0;
  const same = async (label: string, sql: Promise<unknown>, replay: unknown) => {
    compared += 1;
    expect({ label, answer: await sql }).toEqual({ label, answer: replay });
  };
  const full = fold(log);
  for (const factId of full.facts.keys()) await same(`history(${factId})`, queries.history(memoryId, factId), factHistory(full, factId));
  await same('history(unknown)', queries.history(memoryId, 'no-such-fact'), null);

  for (const r of plan.recordedAts) {
    const state = fold(log, r);
    for (const validAt of plan.validAts) {
      const cut = { validAt, recordedAt: r };
      await same(`facts(${validAt}, ${r})`, queries.facts(memoryId, cut, {}), factsAt(state, validAt));
      await same(`events(${validAt}, ${r})`, queries.events(memoryId, cut), eventsAt(state, validAt));
      await same(`episodes(${validAt}, ${r})`, queries.episodes(memoryId, cut), episodesAt(state, validAt));
    }
    for (const filter of plan.filters ?? []) {
      const cut = { validAt: '*' as const, recordedAt: r };
      await same(`facts(*, ${r}, ${JSON.stringify(filter)})`, queries.facts(memoryId, cut, filter), factsAt(state, '*', filter));
    }
    for (const entityId of plan.entityIds ?? []) {
      await same(`entity(${entityId}, ${r})`, queries.entity(memoryId, entityId, r), entityAt(state, entityId));
    }
    for (const factId of full.facts.keys()) {
      await same(`history(${factId}, ${r})`, queries.history(memoryId, factId, r), factHistory(state, factId));
    }
    await same(`mentions(${r})`, queries.mentions(memoryId, r), mentionsAt(state));
    for (const docId of [...new Set([...full.mentions.values()].map((m) => m.docId)), 'no-such-doc']) {
      await same(`documentMentions(${docId}, ${r})`, queries.documentMentions(memoryId, docId, r), documentMentionsAt(state, docId));
    }
    for (const mentionId of [...full.mentions.keys(), 'no-such-mention']) {
      await same(`mention(${mentionId}, ${r})`, queries.mention(memoryId, mentionId, r), mentionAt(state, mentionId));
    }
  }
  for (const [from, to] of plan.windows ?? []) {
    await same(`changes(${from}, ${to})`, queries.changes(memoryId, from, to), changesBetween(foldBefore(log, to), from, to));
  }
  return compared;
}
