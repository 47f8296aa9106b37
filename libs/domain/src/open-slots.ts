import type { Instant } from './time';

/** A subject's facts whose open version (in record time) can still hold: never-ending ones, and the others by their end. */
interface Slot {
  endless: Set<string>;
  /** Ends of the bounded open versions, ascending (ties by fact id), and their facts' ids beside them. */
  ends: Instant[];
  ids: string[];
}

/**
 * The facts of each subject (`subjectKey`) by the end of their version open in record time.
 * Supersession asks which of a subject's facts hold at a valid time t; a subject that has had
 * a relation for years holds mostly versions that ended long before t, and those are never
 * visited: the facts asked for are the never-ending ones and those ending after t. A subject's
 * slot is built when first asked for and kept in step from then on, so a fold that never decides
 * (a replay for reading) keeps none.
 */
export class OpenSlots {
  // Private: a cache is no part of the state's value, so states that fold the same log compare equal.
  readonly #slots = new Map<string, Slot>();

  /** Whether any slot is kept: until then a fact's changes need not be told. */
  get tracking(): boolean {
    return this.#slots.size > 0;
  }

  /** The fact's open version was `before` and is now `after` (either absent: no open version). */
  move(key: string, factId: string, before: { validTo: Instant | null } | undefined, after: { validTo: Instant | null } | undefined): void {
    const slot = this.#slots.get(key);
    if (slot === undefined) return;
    if (before?.validTo === after?.validTo && (before === undefined) === (after === undefined)) return;
    if (before !== undefined) remove(slot, factId, before.validTo);
    if (after !== undefined) insert(slot, factId, after.validTo);
  }

  /**
   * The subject's facts whose open version never ends or ends after `t`; `open` lists the subject's
   * facts with their open versions, read once to build the slot when it is first asked for.
   */
  *endingAfter(key: string, t: Instant, open: () => Iterable<readonly [string, { validTo: Instant | null }]>): Generator<string> {
    let slot = this.#slots.get(key);
    if (slot === undefined) {
      this.#slots.set(key, (slot = { endless: new Set(), ends: [], ids: [] }));
      for (const [factId, version] of open()) insert(slot, factId, version.validTo);
    }
    yield* slot.endless;
    for (let i = firstAfter(slot, t); i < slot.ids.length; i++) yield slot.ids[i]!;
  }
}

function remove(slot: Slot, factId: string, end: Instant | null): void {
  if (end === null) {
    slot.endless.delete(factId);
    return;
  }
  const i = position(slot, end, factId);
  if (slot.ids[i] === factId && slot.ends[i] === end) {
    slot.ends.splice(i, 1);
    slot.ids.splice(i, 1);
  }
}

function insert(slot: Slot, factId: string, end: Instant | null): void {
  if (end === null) {
    slot.endless.add(factId);
    return;
  }
  // Ends mostly grow with the log: the insertion point is then at the end, and splice costs nothing.
  const i = position(slot, end, factId);
  slot.ends.splice(i, 0, end);
  slot.ids.splice(i, 0, factId);
}

/** The first index whose (end, id) is not before (end, factId). */
function position(slot: Slot, end: Instant, factId: string): number {
  let lo = 0;
  let hi = slot.ends.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    const e = slot.ends[mid]!;
    if (e < end || (e === end && slot.ids[mid]! < factId)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The first index whose end is after `t`. */
function firstAfter(slot: Slot, t: Instant): number {
  let lo = 0;
  let hi = slot.ends.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (slot.ends[mid]! <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
