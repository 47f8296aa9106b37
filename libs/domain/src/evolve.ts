import type { Change, ContentErased, VersionOpened, VersionedKind } from './changes';
import { erasureKey } from './erasure';
import type { LogRecord, MemoryRecord } from './records';
import { changeOf, idsOf } from './record-types';
import {
  type FactRecord,
  type FactVersion,
  type MemoryState,
  type EventVersion,
  type EpisodeVersion,
  type TopicVersion,
  initialState,
  linkKey,
  openVersion,
  subjectKey,
} from './state';
import type { Instant } from './time';

/** Folds one record into the state (mutating it; see MemoryState). */
export function evolve(state: MemoryState, record: MemoryRecord): MemoryState {
  const at = record.meta.recordedAt;
  applyRecord(state, record, at);
  state.latestRecordedAt = at;
  state.eventCount += 1;
  recordOutcome(state, record);
  return state;
}

/**
 * Folds records in log order, up to and including record time `until` (a record-time cut).
 * Erasures recorded after the cut still apply: an erasure changes the past (SPEC §5.2).
 */
export function fold(records: Iterable<MemoryRecord>, until?: Instant, state: MemoryState = initialState()): MemoryState {
  const rest = records[Symbol.iterator]();
  for (let next = rest.next(); !next.done; next = rest.next()) {
    const record = next.value;
    if (until !== undefined && record.meta.recordedAt > until) return applyLaterErasures(state, record, rest);
    evolve(state, record);
  }
  return state;
}

/**
 * `fold` for answering queries (replay): skips the command outcomes, which only the
 * deciders read (idempotent retries), and which cost a map entry per command.
 */
export function foldForReading(records: Iterable<MemoryRecord>, until?: Instant, state: MemoryState = initialState()): MemoryState {
  const rest = records[Symbol.iterator]();
  for (let next = rest.next(); !next.done; next = rest.next()) {
    const record = next.value;
    const at = record.meta.recordedAt;
    if (until !== undefined && at > until) return applyLaterErasures(state, record, rest);
    applyRecord(state, record, at);
    state.latestRecordedAt = at;
    state.eventCount += 1;
  }
  return state;
}

/** Folds the records recorded strictly before `before`, and the erasures recorded from then on. */
export function foldBefore(records: Iterable<MemoryRecord>, before: Instant): MemoryState {
  const state = initialState();
  const rest = records[Symbol.iterator]();
  for (let next = rest.next(); !next.done; next = rest.next()) {
    const record = next.value;
    if (record.meta.recordedAt >= before) return applyLaterErasures(state, record, rest);
    evolve(state, record);
  }
  return state;
}

/** The erasures among `first` and the records after it, applied to a state folded up to a cut before them. */
function applyLaterErasures(state: MemoryState, first: MemoryRecord, rest: Iterator<MemoryRecord>): MemoryState {
  for (let next: IteratorResult<MemoryRecord> = { done: false, value: first }; !next.done; next = rest.next()) {
    if (next.value.type !== 'SubjectErased') continue;
    const change = changeOf(next.value);
    if (change !== null) applyChange(state, change, next.value.meta.recordedAt);
  }
  return state;
}

function applyRecord(state: MemoryState, record: LogRecord, at: Instant): void {
  const change = changeOf(record);
  if (change !== null) applyChange(state, change, at);
}

/** Applies one change at record time `at` (mutating the state). */
export function applyChange(state: MemoryState, change: Change, at: Instant): void {
  switch (change.change) {
    case 'entity': {
      const { entityId, name, aliases, types } = change;
      const known = state.entities.get(entityId);
      if (known) {
        // A registration of an erased entity names it again: new content. Otherwise it changes nothing.
        if (known.name !== null || name === null) return;
        known.name = name;
        aliases.forEach((value) => known.aliases.push({ value, recordedFrom: at }));
        types.forEach((value) => known.types.push({ value, recordedFrom: at }));
        delete known.erased;
        return;
      }
      state.entities.set(entityId, {
        entityId,
        name,
        recordedFrom: at,
        aliases: aliases.map((value) => ({ value, recordedFrom: at })),
        types: types.map((value) => ({ value, recordedFrom: at })),
      });
      return;
    }
    case 'labels': {
      const entity = state.entities.get(change.entityId);
      if (!entity) return;
      for (const value of change.aliases) entity.aliases.push({ value, recordedFrom: at });
      for (const value of change.types) entity.types.push({ value, recordedFrom: at });
      return;
    }
    case 'merge': {
      const { srcId, dstId, srcRoot, dstRoot } = change;
      state.classes.merge(srcRoot, dstRoot);
      state.merges.push({ srcId, dstId, srcRoot, dstRoot, recordedAt: at });
      return;
    }
    case 'relation':
      state.relations.set(change.rel, change.cardinality);
      if (change.retention === null) state.retentions.delete(change.rel);
      else state.retentions.set(change.rel, change.retention);
      return;
    case 'gate':
      state.extractionGate = change.gate;
      return;
    case 'tiers':
      state.tierPolicy =
        change.coldAfter === null && change.salienceFloor === null ? null : { coldAfter: change.coldAfter, salienceFloor: change.salienceFloor };
      return;
    case 'opened':
      openItemVersion(state, change, at);
      return;
    case 'closed': {
      const fact = change.kind === 'fact' ? state.facts.get(change.id) : undefined;
      const before = fact && openVersion(fact.versions);
      closeOpen(versionsOf(state, change.kind, change.id), at);
      if (fact) slotMoved(state, fact, before);
      return;
    }
    case 'corrected': {
      const fact = state.facts.get(change.id);
      const open = fact && openVersion(fact.versions);
      if (!fact || !open) return;
      closeOpen(fact.versions, at);
      const next: FactVersion = { ...open, validFrom: change.validFrom, validTo: change.validTo, recordedFrom: at, recordedTo: null };
      fact.versions = appended(fact.versions, next);
      slotMoved(state, fact, open);
      return;
    }
    case 'link': {
      const { kind, from, to, qualifier } = change;
      state.links.set(linkKey(kind, from, to), { kind, from, to, qualifier, recordedFrom: at });
      return;
    }
    case 'mention': {
      if (state.mentions.has(change.mentionId)) return;
      const { mentionId, docId, text, speaker, occurredAt } = change;
      state.mentions.set(mentionId, { mentionId, docId, text, speaker, occurredAt, recordedFrom: at });
      return;
    }
    case 'erased':
      eraseContent(state, change);
      state.erasures.set(erasureKey(change.subject), (state.erasures.get(erasureKey(change.subject)) ?? 0) + 1);
      return;
    default:
      return change satisfies never;
  }
}

/**
 * Removes the listed items' content from every version they have (the state's objects are its
 * own, never the log records'). Reading folds also apply erasures recorded after their cut
 * (`applyLaterErasures`): an erasure changes the past.
 */
function eraseContent(state: MemoryState, erased: ContentErased): void {
  for (const id of erased.entities) {
    const entity = state.entities.get(id);
    if (!entity) continue;
    entity.name = null;
    entity.aliases = [];
    entity.types = [];
    entity.erased = true;
  }
  for (const id of erased.facts) {
    const fact = state.facts.get(id);
    if (!fact) continue;
    if (fact.dst !== null && typeof fact.dst !== 'string') fact.dst = null;
    for (const version of fact.versions) {
      if (version.source !== null) state.strings.forget(version.source);
      version.source = null;
      version.erased = true;
    }
  }
  for (const id of erased.events) {
    for (const version of state.events.get(id) ?? []) {
      version.summary = null;
      version.erased = true;
    }
  }
  for (const id of erased.topics ?? []) {
    for (const version of state.topics.get(id) ?? []) {
      version.title = null;
      version.summary = null;
      version.erased = true;
    }
  }
  for (const id of erased.mentions) {
    const mention = state.mentions.get(id);
    if (!mention) continue;
    mention.text = null;
    mention.speaker = null;
    mention.erased = true;
  }
}

function openItemVersion(state: MemoryState, opened: VersionOpened, at: Instant): void {
  switch (opened.kind) {
    case 'fact': {
      const { src, rel, dst, validFrom, validTo, confidence, evidence, source } = opened.content;
      const version: FactVersion = {
        validFrom,
        validTo,
        confidence,
        // Most facts cite nothing: one shared empty list, not one per version.
        evidence: evidence.length === 0 ? NO_EVIDENCE : evidence.slice(),
        source: source === null ? null : state.strings.intern(source),
        recordedFrom: at,
        recordedTo: null,
      };
      let fact = state.facts.get(opened.id);
      let before: FactVersion | undefined;
      if (!fact) {
        // A fact's src, rel and dst never change (the deciders refuse it): its first version names them.
        // A literal array, not a push into an empty one: V8 gives a pushed-into array room for 16.
        const { strings } = state;
        fact = {
          factId: opened.id,
          src: strings.intern(src),
          rel: strings.intern(rel),
          dst: typeof dst === 'string' ? strings.intern(dst) : dst,
          versions: [version],
        };
        state.facts.set(opened.id, fact);
        indexSubject(state, fact);
      } else {
        // Its literal was erased: this assertion names it again, as new content.
        if (fact.dst === null) fact.dst = dst;
        before = openVersion(fact.versions);
        closeOpen(fact.versions, at);
        fact.versions = appended(fact.versions, version);
      }
      slotMoved(state, fact, before);
      return;
    }
    case 'event': {
      const version: EventVersion = { eventId: opened.id, ...opened.content, recordedFrom: at, recordedTo: null };
      pushVersion(state.events, opened.id, version, at);
      return;
    }
    case 'episode': {
      const version: EpisodeVersion = { episodeId: opened.id, ...opened.content, recordedFrom: at, recordedTo: null };
      pushVersion(state.episodes, opened.id, version, at);
      return;
    }
    case 'topic': {
      const version: TopicVersion = { topicId: opened.id, ...opened.content, recordedFrom: at, recordedTo: null };
      pushVersion(state.topics, opened.id, version, at);
      return;
    }
    default:
      return opened satisfies never;
  }
}

function versionsOf(state: MemoryState, kind: VersionedKind, id: string): { recordedTo: Instant | null }[] {
  switch (kind) {
    case 'fact':
      return state.facts.get(id)?.versions ?? [];
    case 'event':
      return state.events.get(id) ?? [];
    case 'episode':
      return state.episodes.get(id) ?? [];
    case 'topic':
      return state.topics.get(id) ?? [];
    default:
      return kind satisfies never;
  }
}

/** Shared by every fact version that cites nothing; never written to. */
const NO_EVIDENCE: string[] = Object.freeze([]) as unknown as string[];

function closeOpen(versions: { recordedTo: Instant | null }[], at: Instant): void {
  const open = openVersion(versions);
  if (open) open.recordedTo = at;
}

function pushVersion<V extends { recordedTo: Instant | null }>(map: Map<string, V[]>, id: string, version: V, at: Instant): void {
  const versions = map.get(id);
  if (versions === undefined) {
    map.set(id, [version]);
    return;
  }
  closeOpen(versions, at);
  map.set(id, appended(versions, version));
}

/**
 * The list with `version` after its last: a short list is copied to its exact length, since a
 * push makes room for 16 more and most items have a few versions; a long one grows in place.
 */
function appended<V>(versions: V[], version: V): V[] {
  if (versions.length >= 16) {
    versions.push(version);
    return versions;
  }
  return versions.concat([version]);
}

/** Keeps `openSlots` in step with the fact's open version, which was `before`. */
function slotMoved(state: MemoryState, fact: FactRecord, before: FactVersion | undefined): void {
  if (state.openSlots.tracking) state.openSlots.move(subjectKey(fact.rel, fact.src), fact.factId, before, openVersion(fact.versions));
}

function indexSubject(state: MemoryState, fact: FactRecord): void {
  const key = subjectKey(fact.rel, fact.src);
  const ids = state.factsBySubject.get(key) ?? new Set<string>();
  ids.add(fact.factId);
  state.factsBySubject.set(key, ids);
}

/**
 * Rebuilds each command's result from its records, so idempotent retries survive restarts, with who
 * emitted it and the turns it was derived from (what a new extractor version re-derives from them replaces).
 */
function recordOutcome(state: MemoryState, record: MemoryRecord): void {
  const { commandId, recordedAt, actor, derivedFrom } = record.meta;
  const outcome = state.outcomes.get(commandId);
  if (outcome) {
    Object.assign(outcome.ids, idsOf(record, outcome.ids));
    return;
  }
  // A command's first record names its ids: that object is kept as they are, not copied into an empty one.
  state.outcomes.set(commandId, { recordedAt, ids: idsOf(record, {}), actor: actor ?? null });
  for (const mentionId of derivedFrom ?? []) {
    const derived = state.derivations.get(mentionId);
    if (derived === undefined) state.derivations.set(mentionId, [commandId]);
    else derived.push(commandId);
  }
}
