import {
  type FactFilter,
  type Instant,
  type Page,
  type MemoryRecord,
  type MemoryQueries,
  type ValidAt,
  changeCountsOf,
  changesBetween,
  documentMentionsAt,
  entitiesAt,
  entityAt,
  episodesAt,
  topicsAt,
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

/** Pages of every listing sorted by id that the comparison walks (a page of 1 and of 2, from the start and after each id). */
const PAGE_SIZES = [1, 2];

/** Every page of `limit` a listing of `ids` has, and the pages after an id it does not list. */
function pagesOf(ids: readonly string[], limit: number): Page[] {
  return [{ limit }, ...ids.map((after) => ({ after, limit })), { after: '', limit }, { after: '\u{10ffff}' }];
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
      await same(`topics(${validAt}, ${r})`, queries.topics(memoryId, cut), topicsAt(state, validAt));
    }
    const anyTime = { validAt: '*' as const, recordedAt: r };
    for (const filter of plan.filters ?? []) {
      await same(`facts(*, ${r}, ${JSON.stringify(filter)})`, queries.facts(memoryId, anyTime, filter), factsAt(state, '*', filter));
    }
    // Pages of the listings sorted by id: the read models cut them in SQL, replay from the whole answer.
    const listed = {
      facts: factsAt(state, '*').map((f) => f.factId),
      events: eventsAt(state, '*').map((e) => e.eventId),
      episodes: episodesAt(state, '*').map((e) => e.episodeId),
      topics: topicsAt(state, '*').map((t) => t.topicId),
    };
    for (const limit of PAGE_SIZES) {
      for (const page of pagesOf(listed.facts, limit)) {
        await same(`facts(*, ${r}, ${JSON.stringify(page)})`, queries.facts(memoryId, anyTime, page), factsAt(state, '*', page));
      }
      for (const page of pagesOf(listed.events, limit)) {
        await same(`events(*, ${r}, ${JSON.stringify(page)})`, queries.events(memoryId, anyTime, page), eventsAt(state, '*', page));
      }
      for (const page of pagesOf(listed.episodes, limit)) {
        await same(`episodes(*, ${r}, ${JSON.stringify(page)})`, queries.episodes(memoryId, anyTime, page), episodesAt(state, '*', page));
      }
      for (const page of pagesOf(listed.topics, limit)) {
        await same(`topics(*, ${r}, ${JSON.stringify(page)})`, queries.topics(memoryId, anyTime, page), topicsAt(state, '*', page));
      }
    }
    const entityIds = plan.entityIds ?? [];
    for (const entityId of entityIds) {
      await same(`entity(${entityId}, ${r})`, queries.entity(memoryId, entityId, r), entityAt(state, entityId));
      const about = { entity: entityId };
      await same(`events(*, ${r}, ${JSON.stringify(about)})`, queries.events(memoryId, anyTime, about), eventsAt(state, '*', about));
    }
    if (entityIds.length > 0) {
      // Several src at once (a page of entities' facts), entities by their ids (an id merged away, one not yet recorded).
      for (const ids of [entityIds, entityIds.slice(0, 2), [...entityIds.slice(-1), 'no-such-entity']]) {
        const filter = { src: ids };
        await same(`facts(*, ${r}, ${JSON.stringify(filter)})`, queries.facts(memoryId, anyTime, filter), factsAt(state, '*', filter));
        await same(`entities(${r}, ids ${JSON.stringify(ids)})`, queries.entities(memoryId, r, { ids }), entitiesAt(state, { ids }));
      }
    }
    for (const factId of full.facts.keys()) {
      await same(`history(${factId}, ${r})`, queries.history(memoryId, factId, r), factHistory(state, factId));
    }
    await same(`mentions(${r})`, queries.mentions(memoryId, r), mentionsAt(state));
    // By ids: every other mention of the log (some not yet recorded at r), one twice, and an unknown id.
    const ids = [...[...full.mentions.keys()].filter((_, i) => i % 2 === 0), ...[...full.mentions.keys()].slice(0, 1), 'no-such-mention'];
    await same(`mentions(${r}, ids ${JSON.stringify(ids)})`, queries.mentions(memoryId, r, { ids }), mentionsAt(state, { ids }));
    for (const docId of [...new Set([...full.mentions.values()].map((m) => m.docId)), 'no-such-doc']) {
      await same(`documentMentions(${docId}, ${r})`, queries.documentMentions(memoryId, docId, r), documentMentionsAt(state, docId));
    }
    for (const mentionId of [...full.mentions.keys(), 'no-such-mention']) {
      await same(`mention(${mentionId}, ${r})`, queries.mention(memoryId, mentionId, r), mentionAt(state, mentionId));
    }
  }
  for (const [from, to] of plan.windows ?? []) {
    const changes = changesBetween(foldBefore(log, to), from, to);
    await same(`changes(${from}, ${to})`, queries.changes(memoryId, from, to), changes);
    for (const max of [1, 3, 1000]) {
      await same(`changeCounts(${from}, ${to}, ${max})`, queries.changeCounts(memoryId, from, to, max), changeCountsOf(changes, max));
    }
  }
  return compared;
}
