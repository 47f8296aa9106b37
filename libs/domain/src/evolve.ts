import type { Change, VersionOpened, VersionedKind } from './changes';
import type { LogRecord, MemoryRecord } from './records';
import { changeOf, idsOf } from './record-types';
import {
  type FactRecord,
  type FactVersion,
  type MemoryState,
  type EventVersion,
  type EpisodeVersion,
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

/** Folds records in log order, up to and including record time `until` (a record-time cut). */
export function fold(records: Iterable<MemoryRecord>, until?: Instant, state: MemoryState = initialState()): MemoryState {
  for (const record of records) {
    if (until !== undefined && record.meta.recordedAt > until) break;
    evolve(state, record);
  }
  return state;
}

/**
 * `fold` for answering queries (replay): skips the command outcomes, which only the
 * deciders read (idempotent retries), and which cost a map entry per command.
 */
export function foldForReading(records: Iterable<MemoryRecord>, until?: Instant, state: MemoryState = initialState()): MemoryState {
  for (const record of records) {
    const at = record.meta.recordedAt;
    if (until !== undefined && at > until) break;
    applyRecord(state, record, at);
    state.latestRecordedAt = at;
    state.eventCount += 1;
  }
  return state;
}

/** Folds the records recorded strictly before `before`. */
export function foldBefore(records: Iterable<MemoryRecord>, before: Instant): MemoryState {
  const state = initialState();
  for (const record of records) {
    if (record.meta.recordedAt >= before) break;
    evolve(state, record);
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
      if (state.entities.has(change.entityId)) return;
      const { entityId, name, aliases, types } = change;
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
      return;
    case 'opened':
      openItemVersion(state, change, at);
      return;
    case 'closed':
      closeOpen(versionsOf(state, change.kind, change.id), at);
      return;
    case 'corrected': {
      const fact = state.facts.get(change.id);
      const open = fact && openVersion(fact.versions);
      if (!fact || !open) return;
      closeOpen(fact.versions, at);
      const next: FactVersion = { ...open, validFrom: change.validFrom, validTo: change.validTo, recordedFrom: at, recordedTo: null };
      fact.versions.push(next);
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
    default:
      return change satisfies never;
  }
}

function openItemVersion(state: MemoryState, opened: VersionOpened, at: Instant): void {
  switch (opened.kind) {
    case 'fact': {
      const { src, rel, dst, validFrom, validTo, confidence, evidence, source } = opened.content;
      let fact = state.facts.get(opened.id);
      if (!fact) {
        // A fact's src, rel and dst never change (the deciders refuse it): its first version names them.
        fact = { factId: opened.id, src, rel, dst, versions: [] };
        state.facts.set(opened.id, fact);
        indexSubject(state, fact);
      }
      closeOpen(fact.versions, at);
      fact.versions.push({ validFrom, validTo, confidence, evidence: evidence.slice(), source, recordedFrom: at, recordedTo: null });
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
    default:
      return kind satisfies never;
  }
}

function closeOpen(versions: { recordedTo: Instant | null }[], at: Instant): void {
  const open = openVersion(versions);
  if (open) open.recordedTo = at;
}

function pushVersion<V extends { recordedTo: Instant | null }>(map: Map<string, V[]>, id: string, version: V, at: Instant): void {
  const versions = map.get(id) ?? [];
  closeOpen(versions, at);
  versions.push(version);
  map.set(id, versions);
}

function indexSubject(state: MemoryState, fact: FactRecord): void {
  const key = subjectKey(fact.rel, fact.src);
  const ids = state.factsBySubject.get(key) ?? new Set<string>();
  ids.add(fact.factId);
  state.factsBySubject.set(key, ids);
}

/** Rebuilds each command's result from its records, so idempotent retries survive restarts. */
function recordOutcome(state: MemoryState, record: MemoryRecord): void {
  const { commandId, recordedAt } = record.meta;
  let outcome = state.outcomes.get(commandId);
  if (!outcome) {
    outcome = { recordedAt, ids: {} };
    state.outcomes.set(commandId, outcome);
  }
  Object.assign(outcome.ids, idsOf(record, outcome.ids));
}
