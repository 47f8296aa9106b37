import type { ArchiveEdge, EdgeTarget, RetroCorrect, UpsertEdge } from '../commands';
import { DomainError } from '../errors';
import type { LogRecord, FactSuperseded, FactVersionFields } from '../records';
import { deriveFactId, targetKey } from '../ids';
import { type FactRecord, type FactVersion, type MemoryState, canonicalTarget, openVersion, subjectKey } from '../state';
import { type Instant, contains, isNonEmpty } from '../time';
import { type DecideContext, type Decision, requireEntity, sameList, unchanged } from './context';

export function decideUpsertEdge(command: UpsertEdge, { memoryId, recordedAt, state }: DecideContext): Decision {
  const src = requireEntity(state, command.src, 'src');
  const dst: EdgeTarget = typeof command.dst === 'string' ? requireEntity(state, command.dst, 'dst') : command.dst;
  const factId = command.factId ?? defaultFactId(state, memoryId, src, command.rel, dst);
  const fact = state.facts.get(factId);
  if (fact) assertSameTriple(state, fact, src, command.rel, dst);

  const open = fact && openVersion(fact.versions);
  const fields: FactVersionFields = {
    validFrom: command.validFrom ?? open?.validFrom ?? recordedAt,
    validTo: command.validTo !== undefined ? command.validTo : (open?.validTo ?? null),
    confidence: command.confidence !== undefined ? command.confidence : (open?.confidence ?? null),
    evidence: command.evidence ?? open?.evidence ?? [],
    source: command.source !== undefined ? command.source : (open?.source ?? null),
  };
  assertInterval(fields.validFrom, fields.validTo, open !== undefined && (command.validFrom === undefined || command.validTo === undefined));
  if (open && sameFields(open, fields)) return unchanged({ factId });

  const asserted: LogRecord = {
    type: 'FactAsserted',
    data: { factId, src: fact?.src ?? src, rel: command.rel, dst: fact?.dst ?? dst, ...fields },
  };
  const superseded = supersede(state, factId, command.rel, src, dst, fields.validFrom);
  const ids: Record<string, string | string[]> = { factId };
  if (superseded.length > 0) ids['supersededFactIds'] = superseded.map((e) => e.data.factId);
  return { records: [asserted, ...superseded], ids };
}

export function decideArchiveEdge(command: ArchiveEdge, { state }: DecideContext): Decision {
  requireOpen(state, command.factId);
  return { records: [{ type: 'FactArchived', data: { factId: command.factId } }], ids: { factId: command.factId } };
}

export function decideRetroCorrect(command: RetroCorrect, { state }: DecideContext): Decision {
  const open = requireOpen(state, command.factId);
  const validFrom = command.validFrom ?? open.validFrom;
  const validTo = command.validTo !== undefined ? command.validTo : open.validTo;
  assertInterval(validFrom, validTo, command.validFrom === undefined || command.validTo === undefined);
  const ids = { factId: command.factId };
  if (validFrom === open.validFrom && validTo === open.validTo) return unchanged(ids);
  return { records: [{ type: 'FactRetroCorrected', data: { factId: command.factId, validFrom, validTo } }], ids };
}

function requireOpen(state: MemoryState, factId: string): FactVersion {
  const fact = state.facts.get(factId);
  if (!fact) throw new DomainError('UNKNOWN_FACT', `unknown fact ${JSON.stringify(factId)}`, { field: 'factId', factId });
  const open = openVersion(fact.versions);
  if (!open) throw new DomainError('FACT_NOT_OPEN', `fact ${JSON.stringify(factId)} has no open version`, { factId });
  return open;
}

/**
 * SPEC §3.1: a bound kept from the open version: 409; otherwise the command's own input is wrong
 * (both bounds given, or a new fact's validTo at or before the recordedAt its validFrom defaults to): 400.
 */
function assertInterval(validFrom: Instant, validTo: Instant | null, boundFromOpenVersion: boolean): void {
  if (isNonEmpty(validFrom, validTo)) return;
  if (!boundFromOpenVersion) throw new DomainError('INVALID_REQUEST', 'validTo must be later than validFrom', { field: 'validTo' });
  throw new DomainError('INVALID_INTERVAL', `the resulting version would have validTo ${validTo} <= validFrom ${validFrom}`, { validFrom, validTo });
}

/**
 * The id derived from the canonical ids, unless merges made an existing fact of the same
 * entities carry an id derived from other members of their classes (asserted before the merge):
 * then that fact (members in merge order), so a triple asserted again through any alias updates
 * its fact instead of opening a twin.
 */
function defaultFactId(state: MemoryState, memoryId: string, src: string, rel: string, dst: EdgeTarget): string {
  const derived = deriveFactId(memoryId, src, rel, dst);
  const { classes } = state;
  if (state.facts.has(derived) || classes.classSize(src) * (typeof dst === 'string' ? classes.classSize(dst) : 1) === 1) return derived;
  const srcIds = classes.classOf(src);
  const dstIds: readonly EdgeTarget[] = typeof dst === 'string' ? classes.classOf(dst) : [dst];
  // The facts each member of src's class has for rel, not every pair of members (a million
  // hashes for two classes of 1,000): the first member with one whose id derives from its own
  // triple and whose dst is in dst's class; for two such, the earlier dst member.
  const dstKey = targetKey(dst);
  for (const s of srcIds) {
    let earliest: { factId: string; rank: number } | undefined;
    for (const factId of state.factsBySubject.get(subjectKey(rel, s)) ?? []) {
      const fact = state.facts.get(factId)!;
      if (fact.dst === null) continue;
      if (targetKey(canonicalTarget(classes, fact.dst)) !== dstKey || factId !== deriveFactId(memoryId, s, rel, fact.dst)) continue;
      const rank = dstIds.indexOf(fact.dst);
      if (earliest === undefined || rank < earliest.rank) earliest = { factId, rank };
    }
    if (earliest) return earliest.factId;
  }
  return derived;
}

function assertSameTriple(state: MemoryState, fact: FactRecord, src: string, rel: string, dst: EdgeTarget): void {
  // An erased literal is named again by the assertion.
  const sameDst = fact.dst === null || targetKey(canonicalTarget(state.classes, fact.dst)) === targetKey(dst);
  const same = state.classes.canonical(fact.src) === src && fact.rel === rel && sameDst;
  if (!same) {
    const known = fact.dst === null ? 'an erased literal' : targetKey(fact.dst);
    throw new DomainError(
      'FACT_CONFLICT',
      `fact ${JSON.stringify(fact.factId)} is (${fact.src}, ${fact.rel}, ${known}); src, rel and dst never change`,
      {
        factId: fact.factId,
      },
    );
  }
}

function sameFields(version: FactVersionFields, fields: FactVersionFields): boolean {
  return (
    version.validFrom === fields.validFrom &&
    version.validTo === fields.validTo &&
    version.confidence === fields.confidence &&
    version.source === fields.source &&
    sameList(version.evidence, fields.evidence)
  );
}

/** The subject's facts that have an open version, with it. */
function* openFactsOf(state: MemoryState, key: string): Generator<[string, FactVersion]> {
  for (const factId of state.factsBySubject.get(key) ?? []) {
    const open = openVersion(state.facts.get(factId)?.versions ?? []);
    if (open) yield [factId, open];
  }
}

/**
 * SPEC §3.1 supersession: for a `one` relation, other facts (s, rel, d1 != d2)
 * whose open version holds at `t` and started before it now end at `t`.
 */
function supersede(state: MemoryState, factId: string, rel: string, src: string, dst: EdgeTarget, t: Instant): FactSuperseded[] {
  if (state.relations.get(rel) !== 'one') return [];
  const dstKey = targetKey(dst);
  const superseded: FactSuperseded[] = [];
  // Only the facts whose open version ends after t can hold at t; those that end are sorted by id (the records' order).
  for (const member of state.classes.classOf(src)) {
    const key = subjectKey(rel, member);
    for (const otherId of state.openSlots.endingAfter(key, t, () => openFactsOf(state, key))) {
      if (otherId === factId) continue;
      const other = state.facts.get(otherId);
      const open = other && openVersion(other.versions);
      if (!other || !open || !(open.validFrom < t && contains(open.validFrom, open.validTo, t))) continue;
      if (other.dst !== null && targetKey(canonicalTarget(state.classes, other.dst)) === dstKey) continue;
      superseded.push({ type: 'FactSuperseded', data: { factId: otherId, validFrom: open.validFrom, validTo: t, supersededBy: factId } });
    }
  }
  return superseded.sort((a, b) => (a.data.factId < b.data.factId ? -1 : a.data.factId > b.data.factId ? 1 : 0));
}
