import { type Instant, type MemoryQueries, type ValidAt, fold } from '@memotrace/domain';
import type { EventStore } from '@memotrace/event-store';
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
  differences: VerifyDifference[];
}

/**
 * Compares the read models with exact replay for one memory at record time `r`:
 * facts at validAt '*' and at every validity bound the memory knows at r, events
 * and episodes at the same cuts, every entity, mentions, and the history of every
 * fact. Answers compare as JSON (the wire form), every difference is reported.
 */
export async function verifyMemory(
  deps: { projection: MemoryQueries; replay: MemoryQueries; store: EventStore },
  memoryId: string,
  recordedAt: Instant,
): Promise<VerifyReport> {
  const log = await readMemoryLog(deps.store, memoryId);
  const state = fold(log, recordedAt);
  const differences: VerifyDifference[] = [];
  let compared = 0;
  const same = async (query: string, ask: (q: MemoryQueries) => Promise<unknown>) => {
    compared += 1;
    const [projection, replay] = await Promise.all([ask(deps.projection), ask(deps.replay)]);
    if (JSON.stringify(projection) !== JSON.stringify(replay)) differences.push({ query, projection, replay });
  };

  const bounds = new Set<Instant>();
  const add = (from: Instant, to: Instant | null) => {
    bounds.add(from);
    if (to !== null) bounds.add(to);
  };
  for (const fact of state.facts.values()) for (const v of fact.versions) add(v.validFrom, v.validTo);
  for (const versions of state.events.values()) for (const v of versions) add(v.timeSpan.from, v.timeSpan.to);
  for (const versions of state.episodes.values()) for (const v of versions) add(v.window.from, v.window.to);
  const validAts: ValidAt[] = ['*', ...[...bounds].sort()];

  for (const validAt of validAts) {
    const cut = { validAt, recordedAt };
    await same(`facts(validAt=${validAt}, recordedAt=${recordedAt})`, (q) => q.facts(memoryId, cut, {}));
    await same(`events(validAt=${validAt}, recordedAt=${recordedAt})`, (q) => q.events(memoryId, cut));
    await same(`episodes(validAt=${validAt}, recordedAt=${recordedAt})`, (q) => q.episodes(memoryId, cut));
  }
  for (const entityId of [...state.entities.keys()].sort()) {
    await same(`entity(${entityId}, recordedAt=${recordedAt})`, (q) => q.entity(memoryId, entityId, recordedAt));
  }
  await same(`mentions(recordedAt=${recordedAt})`, (q) => q.mentions(memoryId, recordedAt));
  for (const factId of [...state.facts.keys()].sort()) {
    await same(`history(${factId}, recordedAt=${recordedAt})`, (q) => q.history(memoryId, factId, recordedAt));
  }
  return { memoryId, recordedAt, consistent: differences.length === 0, compared, differences };
}
