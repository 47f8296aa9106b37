import type { EdgeTarget } from './commands';
import type { MergeClasses } from './merge-classes';
import { type FactRecord, type FactVersion, type MemoryState, canonicalTarget, openVersion } from './state';
import { type Instant, contains } from './time';
import type { ChangeView, EntityView, EpisodeView, EventView, FactFilter, FactView, MentionView, ValidAt } from './views';
import { compareIds } from './views';

/**
 * Cut functions over a state folded up to the cut's record time `r` (see `fold`):
 * in such a state the versions in the cut are exactly the open ones, and the
 * merges, entities and mentions are exactly those recorded at or before `r`.
 */

export function inValidity(from: Instant, to: Instant | null, validAt: ValidAt): boolean {
  return validAt === '*' || contains(from, to, validAt);
}

/** Every validity bound of the state's versions (fact validities, event spans, episode windows), sorted: where validAt cuts can change. */
export function validityBounds(state: MemoryState): Instant[] {
  const bounds = new Set<Instant>();
  const add = (from: Instant, to: Instant | null) => {
    bounds.add(from);
    if (to !== null) bounds.add(to);
  };
  for (const fact of state.facts.values()) for (const v of fact.versions) add(v.validFrom, v.validTo);
  for (const versions of state.events.values()) for (const v of versions) add(v.timeSpan.from, v.timeSpan.to);
  for (const versions of state.episodes.values()) for (const v of versions) add(v.window.from, v.window.to);
  return [...bounds].sort();
}

export function factsAt(state: MemoryState, validAt: ValidAt, filter: FactFilter = {}): FactView[] {
  const views: FactView[] = [];
  for (const fact of state.facts.values()) {
    const open = openVersion(fact.versions);
    if (!open || !inValidity(open.validFrom, open.validTo, validAt) || !matches(state, fact, filter)) continue;
    views.push(factView(state.classes, fact, open));
  }
  return views.sort((a, b) => compareIds(a.factId, b.factId));
}

export function factHistory(state: MemoryState, factId: string): FactView[] | null {
  const fact = state.facts.get(factId);
  return fact ? fact.versions.map((version) => factView(state.classes, fact, version)) : null;
}

/** Answers name entities by their canonical id at the cut (SPEC MERGE_ENTITY). */
export function factView(classes: MergeClasses, fact: Pick<FactRecord, 'factId' | 'src' | 'rel' | 'dst'>, version: FactVersion): FactView {
  return {
    factId: fact.factId,
    src: classes.canonical(fact.src),
    rel: fact.rel,
    dst: targetView(canonicalTarget(classes, fact.dst)),
    validFrom: version.validFrom,
    validTo: version.validTo,
    recordedFrom: version.recordedFrom,
    recordedTo: version.recordedTo,
    confidence: version.confidence,
    evidence: [...version.evidence],
    source: version.source,
  };
}

/** Answers list fields in one order, whatever order the log's storage kept. */
function targetView(target: EdgeTarget): EdgeTarget {
  return typeof target === 'string' ? target : { literal: target.literal, datatype: target.datatype };
}

export function matchesFilter(classes: MergeClasses, fact: { src: string; rel: string; dst: EdgeTarget }, filter: FactFilter): boolean {
  if (filter.rel !== undefined && fact.rel !== filter.rel) return false;
  if (filter.src !== undefined && classes.canonical(fact.src) !== classes.canonical(filter.src)) return false;
  if (filter.dst !== undefined) {
    const dst = fact.dst;
    const hit = typeof dst === 'string' ? classes.canonical(dst) === classes.canonical(filter.dst) : String(dst.literal) === filter.dst;
    if (!hit) return false;
  }
  return true;
}

function matches(state: MemoryState, fact: FactRecord, filter: FactFilter): boolean {
  return matchesFilter(state.classes, fact, filter);
}

export function entityAt(state: MemoryState, entityId: string): EntityView | null {
  if (!state.entities.has(entityId)) return null;
  const root = state.classes.canonical(entityId);
  const entity = state.entities.get(root);
  if (!entity) return null;
  const members = state.classes.classOf(root).map((id) => state.entities.get(id)).filter((e) => e !== undefined);
  const names = new Set<string>([entity.name]);
  const aliases = new Set<string>();
  const types = new Set<string>();
  for (const member of members) {
    names.add(member.name);
    if (member.entityId !== root) aliases.add(member.name);
    member.aliases.forEach((a) => aliases.add(a.value));
    member.types.forEach((t) => types.add(t.value));
  }
  aliases.delete(entity.name);
  const inClass = new Set(members.map((m) => m.entityId));
  return {
    entityId: root,
    name: entity.name,
    names: [...names],
    aliases: [...aliases],
    types: [...types],
    merges: state.merges.filter((m) => inClass.has(m.dstRoot)).map((m) => ({ entityId: m.srcRoot, into: m.dstRoot, recordedAt: m.recordedAt })),
    recordedFrom: entity.recordedFrom,
  };
}

/** SPEC §3.2: recorded, and every fact of its evidence closure believed at the cut. */
export function eventsAt(state: MemoryState, validAt: ValidAt): EventView[] {
  const views: EventView[] = [];
  for (const versions of state.events.values()) {
    const current = openVersion(versions);
    if (!current || !inValidity(current.timeSpan.from, current.timeSpan.to, validAt) || !evidenceBelieved(state, current.includesFacts)) continue;
    views.push({
      eventId: current.eventId,
      summary: current.summary,
      timeSpan: { from: current.timeSpan.from, to: current.timeSpan.to },
      participants: current.participants.map((p) => ({ entityId: state.classes.canonical(p.entityId), role: p.role })),
      includesFacts: [...current.includesFacts],
      recordedFrom: current.recordedFrom,
    });
  }
  return views.sort((a, b) => compareIds(a.eventId, b.eventId));
}

function evidenceBelieved(state: MemoryState, factIds: readonly string[]): boolean {
  return factIds.every((factId) => {
    const fact = state.facts.get(factId);
    return fact !== undefined && openVersion(fact.versions) !== undefined;
  });
}

/** Visible iff one of its events is; lists only its visible events. */
export function episodesAt(state: MemoryState, validAt: ValidAt): EpisodeView[] {
  const visibleEvents = new Set(eventsAt(state, '*').map((e) => e.eventId));
  const views: EpisodeView[] = [];
  for (const versions of state.episodes.values()) {
    const current = openVersion(versions);
    if (!current || !inValidity(current.window.from, current.window.to, validAt)) continue;
    const events = current.events.filter((id) => visibleEvents.has(id));
    if (events.length === 0) continue;
    views.push({ episodeId: current.episodeId, title: current.title, window: { from: current.window.from, to: current.window.to }, events, recordedFrom: current.recordedFrom });
  }
  return views.sort((a, b) => compareIds(a.episodeId, b.episodeId));
}

export function mentionsAt(state: MemoryState): MentionView[] {
  return [...state.mentions.values()]
    .map((m) => ({ mentionId: m.mentionId, docId: m.docId, text: m.text, speaker: m.speaker, occurredAt: m.occurredAt, recordedFrom: m.recordedFrom }))
    .sort((a, b) => compareIds(a.mentionId, b.mentionId));
}

/** Versions opened or closed with record time in `[from, to)`, in record-time order. */
export function changesBetween(state: MemoryState, from: Instant, to: Instant): ChangeView[] {
  const changes: ChangeView[] = [];
  for (const fact of state.facts.values()) {
    for (const version of fact.versions) {
      const view = factView(state.classes, fact, version);
      if (contains(from, to, version.recordedFrom)) changes.push({ change: 'opened', at: version.recordedFrom, version: view });
      if (version.recordedTo !== null && contains(from, to, version.recordedTo)) changes.push({ change: 'closed', at: version.recordedTo, version: view });
    }
  }
  return changes.sort(compareChanges);
}

/**
 * By time, then fact, closings before openings, then older version first. A total order:
 * versions opened at the same record time (one replaced within that instant) are ordered
 * by record end (the ended one first), then validity, so read models and replay agree.
 */
export function compareChanges(a: ChangeView, b: ChangeView): number {
  if (a.at !== b.at) return compareIds(a.at, b.at);
  if (a.version.factId !== b.version.factId) return compareIds(a.version.factId, b.version.factId);
  if (a.change !== b.change) return a.change === 'closed' ? -1 : 1;
  return (
    compareIds(a.version.recordedFrom, b.version.recordedFrom) ||
    compareEnds(a.version.recordedTo, b.version.recordedTo) ||
    compareIds(a.version.validFrom, b.version.validFrom) ||
    compareEnds(a.version.validTo, b.version.validTo)
  );
}

/** Interval ends: an open end (null) comes after every instant. */
function compareEnds(a: string | null, b: string | null): number {
  if (a === b) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  return compareIds(a, b);
}
