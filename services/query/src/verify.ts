import { type Instant, type MemoryQueries, type ValidAt, fold, validityBounds } from '@memotrace/domain';
import type { LogStore } from '@memotrace/log-store';
import { readMemoryLog } from '@memotrace/memory-log';

export interface VerifyDifference {
  /** The query asked both ways, e.g. `facts(validAt=*, recordedAt=…)`. */
  query: string;
  projection: unknown;
  replay: unknown;
}

export interface VerifyReport {
  memoryId: string;
  recordedAt: Instant;
  consistent: boolean;
  /** How many queries were asked both ways. */
  compared: number;
  /** How many validity bounds (starts and ends of validity, time spans, windows) the memory knows at `recordedAt`. */
  validityBounds: number;
  /** The validity cuts asked: `*`, then the bounds (all of them, or an even spread of MAX_BOUND_CUTS). */
  validAts: ValidAt[];
  differences: VerifyDifference[];
}

/**
 * Cuts at single validity bounds asked per verify. Every version's content is already compared
 * at `*` and in the histories, so the bound cuts test the cut logic at its edges: a bounded,
 * evenly spread set keeps verify linear in the memory's size (each cut reads the whole memory).
 */
export const MAX_BOUND_CUTS = 100;

/** Entity and history comparisons in flight at once (each is a few round trips). */
const CONCURRENCY = 4;

/**
 * Compares the read models with exact replay for one memory at record time `r`:
 * facts, events and episodes at validAt '*' and at the validity bounds the memory
 * knows at r, every entity and their listing, mentions, and the history of every fact. Answers
 * compare as JSON (the wire form); every difference is reported, a listing's by
 * the items that differ.
 */
export async function verifyMemory(
  deps: { projection: MemoryQueries; replay: MemoryQueries; store: LogStore },
  memoryId: string,
  recordedAt: Instant,
): Promise<VerifyReport> {
  const log = await readMemoryLog(deps.store, memoryId);
  const state = fold(log, recordedAt);
  let compared = 0;
  const compare = async (query: string, ask: (q: MemoryQueries) => Promise<unknown>): Promise<VerifyDifference | undefined> => {
    compared += 1;
    const [projection, replay] = await Promise.all([ask(deps.projection), ask(deps.replay)]);
    return JSON.stringify(projection) === JSON.stringify(replay) ? undefined : { query, ...differingItems(projection, replay) };
  };

  const bounds = validityBounds(state);
  const validAts: ValidAt[] = ['*', ...evenSpread(bounds, MAX_BOUND_CUTS)];

  const found: (VerifyDifference | undefined)[] = [];
  for (const validAt of validAts) {
    const cut = { validAt, recordedAt };
    found.push(await compare(`facts(validAt=${validAt}, recordedAt=${recordedAt})`, (q) => q.facts(memoryId, cut, {})));
    found.push(await compare(`events(validAt=${validAt}, recordedAt=${recordedAt})`, (q) => q.events(memoryId, cut)));
    found.push(await compare(`episodes(validAt=${validAt}, recordedAt=${recordedAt})`, (q) => q.episodes(memoryId, cut)));
  }
  found.push(await compare(`mentions(recordedAt=${recordedAt})`, (q) => q.mentions(memoryId, recordedAt)));
  found.push(await compare(`entities(recordedAt=${recordedAt})`, (q) => q.entities(memoryId, recordedAt, {})));
  const perItem = [
    ...[...state.entities.keys()]
      .sort()
      .map((entityId) => () => compare(`entity(${entityId}, recordedAt=${recordedAt})`, (q) => q.entity(memoryId, entityId, recordedAt))),
    ...[...state.facts.keys()]
      .sort()
      .map((factId) => () => compare(`history(${factId}, recordedAt=${recordedAt})`, (q) => q.history(memoryId, factId, recordedAt))),
  ];
  found.push(...(await mapLimited(perItem, CONCURRENCY)));
  const differences = found.filter((d): d is VerifyDifference => d !== undefined);
  return { memoryId, recordedAt, consistent: differences.length === 0, compared, validityBounds: bounds.length, validAts, differences };
}

/** The id each item of a listing answer carries (facts, events, episodes, mentions, entities). */
const ID_KEYS = ['factId', 'eventId', 'episodeId', 'mentionId', 'entityId'] as const;

/**
 * Two unequal answers as reported: of two listings by id, only the items that differ (missing on
 * one side, or unequal), so one bad row of a large memory is a short report (not both whole
 * cuts, which can run to megabytes); anything else (an entity, a history, or listings with the same items in another order) whole.
 */
export function differingItems(projection: unknown, replay: unknown): { projection: unknown; replay: unknown } {
  if (!Array.isArray(projection) || !Array.isArray(replay)) return { projection, replay };
  const key = ID_KEYS.find((k) => uniquelyKeyed(projection, k) && uniquelyKeyed(replay, k));
  if (key === undefined) return { projection, replay };
  const byId = (items: unknown[]) => new Map(items.map((item) => [(item as Record<string, unknown>)[key], JSON.stringify(item)]));
  const [inProjection, inReplay] = [byId(projection), byId(replay)];
  const onlyProjection = projection.filter((item) => inReplay.get(item[key]) !== JSON.stringify(item));
  const onlyReplay = replay.filter((item) => inProjection.get(item[key]) !== JSON.stringify(item));
  return onlyProjection.length + onlyReplay.length === 0 ? { projection, replay } : { projection: onlyProjection, replay: onlyReplay };
}

function uniquelyKeyed(items: unknown[], key: string): boolean {
  const ids = new Set<unknown>();
  for (const item of items) {
    const id = typeof item === 'object' && item !== null ? (item as Record<string, unknown>)[key] : undefined;
    if (typeof id !== 'string' || ids.has(id)) return false;
    ids.add(id);
  }
  return true;
}

/** All of `sorted` if it has at most `max` items, else `max` of them evenly spread, the first and last included. */
export function evenSpread<T>(sorted: readonly T[], max: number): T[] {
  if (sorted.length <= max) return [...sorted];
  if (max <= 1) return sorted.slice(0, max);
  return Array.from({ length: max }, (_, i) => sorted[Math.round((i * (sorted.length - 1)) / (max - 1))]!);
}

/** Runs the tasks at most `limit` at a time; results in the tasks' order. */
async function mapLimited<T>(tasks: readonly (() => Promise<T>)[], limit: number): Promise<T[]> {
  const results: T[] = new Array(tasks.length);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < tasks.length; i = next++) results[i] = await tasks[i]!();
  };
  await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, worker));
  return results;
}
