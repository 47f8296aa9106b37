import type { Instant } from './time';

/**
 * Salience (SPEC §5.4): how much an item matters to the memory now, in [0, 1], a weighted sum of four
 * parts, each in [0, 1]:
 *
 * - recency: `2^(-age / halfLife)`, `age` the time since it was last asserted or returned by a search,
 *   whichever is later (a recalled item is as fresh as a restated one);
 * - retrieval: `1 - 2^(-returned / RETRIEVALS_HALF)`, how often search returned it;
 * - confidence: the fact's confidence (an item without one counts as certain);
 * - connectedness: `1 - 2^(-links / LINKS_HALF)`, the items it links to (a fact's evidence, an event's
 *   facts and participants, an episode's events, a topic's members).
 *
 * Recency weighs most: a memory that is not asked about an item and not told it again lets it fade,
 * while what agents keep retrieving, what is certain and what is well supported fades slower.
 */
export const SALIENCE = {
  halfLifeMs: 30 * 24 * 3600 * 1000,
  retrievalsHalf: 3,
  linksHalf: 3,
  weights: { recency: 0.4, retrieval: 0.2, confidence: 0.2, connectedness: 0.2 },
} as const;

export interface SalienceInput {
  /** When the item was last asserted (its version's record time). */
  assertedAt: Instant;
  /** When a search last returned it; null: never. */
  lastReturnedAt: Instant | null;
  /** How many searches returned it. */
  returned: number;
  confidence: number | null;
  links: number;
}

/** The item's salience at `now` (epoch ms), rounded to four decimals so answers compare exactly. */
export function salienceOf(input: SalienceInput, now: number): number {
  const age = Math.max(0, now - lastTouched(input));
  const { weights } = SALIENCE;
  const recency = 2 ** (-age / SALIENCE.halfLifeMs);
  const retrieval = 1 - 2 ** (-Math.max(0, input.returned) / SALIENCE.retrievalsHalf);
  const confidence = Math.min(1, Math.max(0, input.confidence ?? 1));
  const connectedness = 1 - 2 ** (-Math.max(0, input.links) / SALIENCE.linksHalf);
  const value = weights.recency * recency + weights.retrieval * retrieval + weights.confidence * confidence + weights.connectedness * connectedness;
  return Math.round(Math.min(1, Math.max(0, value)) * 10_000) / 10_000;
}

/** The kinds of item that have a tier (SPEC §5.4): episodes and topics gather items and stay as they are. */
export type TieredKind = 'fact' | 'event' | 'mention';
export type Tier = 'hot' | 'cold';

/** An ISO-8601 duration in milliseconds (years and months counted as 365 and 30 days); null when it is not one. */
export function durationMs(duration: string): number | null {
  const match = /^P(?:(\d+)Y)?(?:(\d+)M)?(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?)?$/.exec(duration);
  if (match === null) return null;
  const [y, mo, w, d, h, mi, s] = match.slice(1).map((part) => Number(part ?? 0)) as [number, number, number, number, number, number, number];
  const day = 24 * 3600 * 1000;
  return (y * 365 + mo * 30 + w * 7 + d) * day + (h * 3600 + mi * 60 + s) * 1000;
}

/**
 * Whether an item cools under `policy` at `now` (SPEC §5.4): neither returned by a search nor asserted again
 * for `coldAfter`, and a salience below `salienceFloor`; a condition that is null holds, a memory without a
 * policy (or with both null) never cools.
 */
export function coolsUnder(
  policy: { coldAfter: string | null; salienceFloor: number | null } | null,
  item: Pick<SalienceInput, 'assertedAt' | 'lastReturnedAt'>,
  salience: number,
  now: number,
): boolean {
  if (policy === null || (policy.coldAfter === null && policy.salienceFloor === null)) return false;
  const idleFor = policy.coldAfter === null ? 0 : (durationMs(policy.coldAfter) ?? Number.POSITIVE_INFINITY);
  return now - lastTouched(item) >= idleFor && (policy.salienceFloor === null || salience < policy.salienceFloor);
}

/** When the item was last asserted or returned by a search (epoch ms). */
export function lastTouched(item: Pick<SalienceInput, 'assertedAt' | 'lastReturnedAt'>): number {
  const asserted = Date.parse(item.assertedAt);
  return item.lastReturnedAt === null ? asserted : Math.max(asserted, Date.parse(item.lastReturnedAt));
}

/** The key of an item's retrieval statistics: its kind and id. */
export const tierKey = (kind: string, id: string): string => `${kind}\u0000${id}`;
