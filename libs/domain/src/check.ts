import type { Verdict } from '@memotrace/contracts';
import type { Cardinality, EdgeTarget } from './commands';
import { factHistory, factsAt, subjectFacts } from './cut';
import { targetKey } from './ids';
import { type MemoryState, canonicalTarget } from './state';
import type { Instant } from './time';
import { inRecordTime, inValidTime } from './visibility';
import { type FactView, type ValidAt, compareIds } from './views';

/** A claim `(src, rel, dst)` at a valid time: its ends as the caller names them (any member of a merge class), `dst` typed as UPSERT_EDGE's. */
export interface Claim {
  src: string;
  rel: string;
  dst: EdgeTarget;
  validAt: ValidAt;
}

/**
 * What one claim is checked against at a record time r; both readers (read models, replay) answer it alike, reading
 * only what the rule needs: the claim's own facts, and the facts that can contradict it.
 */
export interface ClaimGround {
  /**
   * Every version recorded at or before r of the facts `(src, rel, dst)`, either end any member of its class at r, as
   * `history` answers them at r (ends canonical at r, a close after r unseen), by factId, oldest version first. A
   * version whose literal was erased says no `dst` any more: it is not among them.
   */
  versions: FactView[];
  /** When `rel` is `one` at r: the versions in the claim's cut of the facts `(src, rel, d)` whose `d` is not the claim's, by factId. */
  others: FactView[];
  /** The relation's cardinality at r (undeclared: `many`). */
  cardinality: Cardinality;
}

export interface CheckedClaim {
  verdict: Verdict;
  /** The fact versions the verdict rests on. */
  facts: FactView[];
}

/**
 * The verdict on a claim at the cut `(claim.validAt, recordedAt)`: the first of SPEC 5.3's that applies. "Believed" is
 * the record rule at `recordedAt`; "in the cut" adds the validity rule (any validity for `*`, where no version is
 * outdated or not yet valid).
 */
export function checkClaim(ground: ClaimGround, validAt: ValidAt, recordedAt: Instant): CheckedClaim {
  const believed = (v: FactView) => inRecordTime('interval', v.recordedFrom, v.recordedTo, recordedAt);
  const inCut = (v: FactView) => believed(v) && inValidTime(v.validFrom, v.validTo, validAt);
  const rested = (verdict: Verdict, facts: FactView[]): CheckedClaim | undefined => (facts.length > 0 ? { verdict, facts } : undefined);
  const held = ground.versions.filter(believed);
  return (
    rested('supported', held.filter(inCut)) ??
    (ground.cardinality === 'one' ? rested('contradicted', ground.others.filter(inCut)) : undefined) ??
    (validAt === '*'
      ? undefined
      : (rested(
          'outdated',
          held.filter((v) => v.validTo !== null && v.validTo <= validAt),
        ) ??
        rested(
          'not_yet_valid',
          held.filter((v) => v.validFrom > validAt),
        ))) ??
    // Believed at some earlier record time: a non-empty record interval that began before r (none is believed at r).
    (held.length === 0
      ? rested(
          'retracted',
          ground.versions.filter((v) => v.recordedFrom < recordedAt && (v.recordedTo === null || v.recordedFrom < v.recordedTo)),
        )
      : undefined) ?? { verdict: 'unknown', facts: [] }
  );
}

/** Whether a version says the claim's `dst` (`wanted`: its targetKey, canonical at r). */
export function saysTarget(version: FactView, wanted: string): boolean {
  return version.dst !== null && targetKey(version.dst) === wanted;
}

/** The replay reader's grounds: over a state folded to the check's record time. */
export function claimGroundsAt(state: MemoryState, claims: readonly Claim[]): ClaimGround[] {
  return claims.map((claim) => {
    const wanted = targetKey(canonicalTarget(state.classes, claim.dst));
    const cardinality = state.relations.get(claim.rel) ?? 'many';
    return {
      versions: subjectFacts(state, [claim.src], claim.rel)
        .sort((a, b) => compareIds(a.factId, b.factId))
        .flatMap((fact) => factHistory(state, fact.factId)!)
        .filter((v) => saysTarget(v, wanted)),
      others: cardinality === 'one' ? factsAt(state, claim.validAt, { src: claim.src, rel: claim.rel }).filter((v) => !saysTarget(v, wanted)) : [],
      cardinality,
    };
  });
}
