import { compareIds, memoize } from '@memotrace/domain';
import { termSet } from './analyze';
import type { CutItems } from './cut-items';
import { type ExpansionOptions, DEFAULT_EXPANSION, expand } from './expand';
import { scoreFusion } from './fusion';
import type { Candidate, ScoredCandidate } from './items';
import { type RecallHit, type RecallResult, itemKey } from './recall-backend';
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
  /** Score factor of a statement that says again what a turn of the cut says (see `restatesTurn`). */
  restatementFactor: number;
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
  restatementFactor: 0.6,
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
 * speaker, and the facts whose subject, the query names; a statement derived from a turn of
 * the cut ranks below that turn when both match as well, since the turn says it in full and the
 * statement is the compact rest. Best first; ties by kind then id.
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
  const terms = (key: string) => termSet(items.candidate(key)?.text ?? '');
  for (const [key, score] of scores) {
    const c = items.candidate(key)!;
    const person = c.speaker ?? c.subject;
    const named = person !== undefined && context.queryWords?.has(firstName(person)) === true;
    const intent = inIntent(c, context.intent) ? options.intentFactor : 1;
    const restates = restatesTurn(items, c, terms) ? options.restatementFactor : 1;
    ranked.push({ ...c, score: score * intent * (named ? options.speakerFactor : 1) * restates });
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

/**
 * A statement that says again what a turn of the cut says: a fact most of whose words (as the index reads
 * words) are words of a turn it cites, or an event including such a fact. A fact an agent states with a turn
 * as its evidence in words of its own ("Alice works at Acme" citing "I just started at Acme!") is no
 * restatement.
 */
function restatesTurn(items: CutItems, c: Candidate, terms: (key: string) => ReadonlySet<string>): boolean {
  if (c.kind === 'event') {
    return c.evidence.some((e) => {
      const fact = e.kind === 'fact' ? items.candidate(itemKey(e)) : undefined;
      return fact !== undefined && restatesTurn(items, fact, terms);
    });
  }
  if (c.kind !== 'fact') return false;
  // The subject's name is the speaker's in the turn's text: what counts is what is said of them.
  const subject = termSet(c.subject ?? '');
  const own = [...terms(itemKey(c))].filter((t) => !subject.has(t));
  return c.evidence.some((e) => {
    if (e.kind !== 'mention' || !items.has(itemKey(e))) return false;
    const turn = terms(itemKey(e));
    return own.length > 0 && own.filter((t) => turn.has(t)).length / own.length >= RESTATED;
  });
}

/** The share of a fact's words that makes it a restatement of the turn that has them. */
const RESTATED = 0.6;

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
