import { compareIds, memoize } from '@memotrace/domain';
import type { CutItems } from './cut-items';
import { type ExpansionOptions, DEFAULT_EXPANSION, expand } from './expand';
import { scoreFusion } from './fusion';
import type { Candidate, ScoredCandidate } from './items';
import type { RecallHit, RecallResult } from './recall-backend';
import { type TimeInterval, itemInterval } from './temporal-intent';

export interface RankingOptions {
  bm25Weight: number;
  vectorWeight: number;
  /** The vector list ends at its this-many-th mention (see `upToMentions`). */
  vectorMentions: number;
  /** Score factor of a fact version whose validity ended by the reference time. */
  supersededFactor: number;
  /** Score factor of an item whose own time is specific and inside the interval the query asks for. */
  intentFactor: number;
  /** Score factor of a mention whose speaker, or a fact whose subject, the query names. */
  speakerFactor: number;
  expansion: ExpansionOptions;
}

/** Tuned on the LoCoMo dev split only. */
export const DEFAULT_RANKING: RankingOptions = {
  bm25Weight: 1,
  vectorWeight: 0.5,
  vectorMentions: 100,
  supersededFactor: 0.5,
  intentFactor: 3,
  speakerFactor: 1.5,
  expansion: DEFAULT_EXPANSION,
};

export interface RankingContext {
  /** The cut's reference time, epoch ms. */
  reference: number;
  /** The interval the query's time expression asks for, if any. */
  intent: TimeInterval | null;
  /** The query's words, lower case (a speaker is named when their first name is one of them). */
  queryWords?: ReadonlySet<string>;
}

/**
 * Fuses the recall lists (normalised scores), ranks superseded fact versions below
 * current ones, expands along the item graph, then favours the items whose own time lies
 * inside the query's intended interval (TSM-style semantic-time reranking; a factor of a
 * relevance score, never a hard tier, so it cannot rescue an item with nothing else
 * relevant about it and a misread time expression costs little) and the mentions whose
 * speaker, and the facts whose subject, the query names. Best first; ties by kind then id.
 */
export function rankItems(
  items: CutItems,
  recall: RecallResult,
  context: RankingContext,
  options: RankingOptions = DEFAULT_RANKING,
): ScoredCandidate[] {
  // A backend may only name items of the cut: others are dropped before they could set a list's scale.
  const inCut = (hits: readonly RecallHit[]) => hits.filter((hit) => items.has(hit.key));
  const fused = scoreFusion([
    { hits: inCut(recall.bm25), weight: options.bm25Weight },
    { hits: upToMentions(items, inCut(recall.vector), options.vectorMentions), weight: options.vectorWeight, floor: recall.vectorFloor ?? 0 },
  ]);
  for (const [key, score] of fused) if (isSuperseded(items.candidate(key)!, context.reference)) fused.set(key, score * options.supersededFactor);
  const scores = fused.size > 0 ? expand(fused, items, options.expansion) : fused;
  const ranked: ScoredCandidate[] = [];
  for (const [key, score] of scores) {
    const c = items.candidate(key)!;
    const person = c.speaker ?? c.subject;
    const named = person !== undefined && context.queryWords?.has(firstName(person)) === true;
    ranked.push({ ...c, score: (inIntent(c, context.intent) ? score * options.intentFactor : score) * (named ? options.speakerFactor : 1) });
  }
  return ranked.sort((a, b) => b.score - a.score || a.kind.localeCompare(b.kind) || compareIds(a.id, b.id));
}

/**
 * The nearest hits up to the `mentions`-th mention. Facts and events derived from turns restate
 * them: counted among the nearest, they would push turns out of the list and so reorder the
 * turns among themselves; a memory's derived items then take no turn's place there.
 */
function upToMentions(items: CutItems, hits: readonly RecallHit[], mentions: number): RecallHit[] {
  const kept: RecallHit[] = [];
  let seen = 0;
  for (const hit of hits) {
    if (seen === mentions) break;
    kept.push(hit);
    if (items.candidate(hit.key)!.kind === 'mention') seen += 1;
  }
  return kept;
}

function inIntent(c: Candidate, intent: TimeInterval | null): boolean {
  if (intent === null) return false;
  const own = ownTime(c);
  return own !== null && intent.from <= own.from && own.to <= intent.to;
}

/**
 * When an item itself happened, as specific as it is known: a mention's instant, a bounded
 * validity or time span; an open-ended one ("Maya lives in Lisbon") only at its start, since
 * it holds at every later time and a time word about any of them says nothing about it.
 */
export function ownTime(c: Candidate): TimeInterval | null {
  const interval = itemInterval(c);
  if (interval === null || interval.to !== Number.POSITIVE_INFINITY) return interval;
  return { from: interval.from, to: interval.from + 1 };
}

/** A speaker's first name, lower case (speakers repeat from turn to turn). */
const firstName = memoize((speaker) => speaker.toLowerCase().split(/\s+/)[0]!, 10_000);

/** A fact version whose validity ended at or before the reference time (a later version or an end replaced it). */
export function isSuperseded(c: Candidate, reference: number): boolean {
  return c.kind === 'fact' && c.validTo !== undefined && c.validTo !== null && Date.parse(c.validTo) <= reference;
}
