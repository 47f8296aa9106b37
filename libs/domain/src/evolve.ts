import type { DomainEvent, MemoryEvent } from './events';
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

/** Folds one event into the state (mutating it; see MemoryState). */
export function evolve(state: MemoryState, event: MemoryEvent): MemoryState {
  const at = event.meta.recordedAt;
  applyEvent(state, event, at);
  state.latestRecordedAt = at;
  state.eventCount += 1;
  recordOutcome(state, event);
  return state;
}

/** Folds events in log order, up to and including record time `until` (a record-time cut). */
export function fold(events: Iterable<MemoryEvent>, until?: Instant, state: MemoryState = initialState()): MemoryState {
  for (const event of events) {
    if (until !== undefined && event.meta.recordedAt > until) break;
    evolve(state, event);
  }
  return state;
}

/**
 * `fold` for answering queries (replay): skips the command outcomes, which only the
 * deciders read (idempotent retries), and which cost a map entry per command.
 */
export function foldForReading(events: Iterable<MemoryEvent>, until?: Instant, state: MemoryState = initialState()): MemoryState {
  for (const event of events) {
    const at = event.meta.recordedAt;
    if (until !== undefined && at > until) break;
    applyEvent(state, event, at);
    state.latestRecordedAt = at;
    state.eventCount += 1;
  }
  return state;
}

/** Folds the events recorded strictly before `before`. */
export function foldBefore(events: Iterable<MemoryEvent>, before: Instant): MemoryState {
  const state = initialState();
  for (const event of events) {
    if (event.meta.recordedAt >= before) break;
    evolve(state, event);
  }
  return state;
}

function applyEvent(state: MemoryState, event: DomainEvent, at: Instant): void {
  switch (event.type) {
    case 'EntityRegistered': {
      const { entityId, name, aliases, types } = event.data;
      state.entities.set(entityId, {
        entityId,
        name,
        recordedFrom: at,
        aliases: aliases.map((value) => ({ value, recordedFrom: at })),
        types: types.map((value) => ({ value, recordedFrom: at })),
      });
      return;
    }
    case 'EntityAliasesAdded': {
      const entity = state.entities.get(event.data.entityId);
      if (!entity) return;
      for (const value of event.data.aliases) entity.aliases.push({ value, recordedFrom: at });
      for (const value of event.data.types) entity.types.push({ value, recordedFrom: at });
      return;
    }
    case 'EntitiesMerged': {
      const { srcRoot, dstRoot } = event.data;
      state.classes.merge(srcRoot, dstRoot);
      state.merges.push({ ...event.data, recordedAt: at });
      return;
    }
    case 'RelationDefined':
      state.relations.set(event.data.rel, event.data.cardinality);
      return;
    case 'FactAsserted': {
      const { factId, src, rel, dst, validFrom, validTo, confidence, evidence, source } = event.data;
      let fact = state.facts.get(factId);
      if (!fact) {
        fact = { factId, src, rel, dst, versions: [] };
        state.facts.set(factId, fact);
        indexSubject(state, fact);
      }
      closeOpen(fact.versions, at);
      fact.versions.push({ validFrom, validTo, confidence, evidence: evidence.slice(), source, recordedFrom: at, recordedTo: null });
      return;
    }
    case 'FactArchived': {
      const fact = state.facts.get(event.data.factId);
      if (fact) closeOpen(fact.versions, at);
      return;
    }
    case 'FactRetroCorrected':
    case 'FactSuperseded': {
      const fact = state.facts.get(event.data.factId);
      const open = fact && openVersion(fact.versions);
      if (!fact || !open) return;
      closeOpen(fact.versions, at);
      const next: FactVersion = { ...open, validFrom: event.data.validFrom, validTo: event.data.validTo, recordedFrom: at, recordedTo: null };
      fact.versions.push(next);
      return;
    }
    case 'EventRecorded': {
      const version: EventVersion = { ...event.data, recordedFrom: at, recordedTo: null };
      pushVersion(state.events, event.data.eventId, version, at);
      return;
    }
    case 'EventsLinked': {
      const { kind, from, to, qualifier } = event.data;
      state.links.set(linkKey(kind, from, to), { kind, from, to, qualifier, recordedFrom: at });
      return;
    }
    case 'EpisodeRecorded': {
      const version: EpisodeVersion = { ...event.data, recordedFrom: at, recordedTo: null };
      pushVersion(state.episodes, event.data.episodeId, version, at);
      return;
    }
    case 'MentionRecorded':
      state.mentions.set(event.data.mentionId, { ...event.data, recordedFrom: at });
      return;
    case 'CommandUnchanged':
      return; // only its outcome and record time count (see evolve)
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

/** Rebuilds each command's result from its events, so idempotent retries survive restarts. */
function recordOutcome(state: MemoryState, event: MemoryEvent): void {
  const { commandId, recordedAt } = event.meta;
  let outcome = state.outcomes.get(commandId);
  if (!outcome) {
    outcome = { recordedAt, ids: {} };
    state.outcomes.set(commandId, outcome);
  }
  Object.assign(outcome.ids, idsOf(event, outcome.ids));
}

/** The ids an event adds to its command's result. */
export function idsOf(event: DomainEvent, current: Record<string, string | string[]>): Record<string, string | string[]> {
  switch (event.type) {
    case 'EntityRegistered':
    case 'EntityAliasesAdded':
      return { entityId: event.data.entityId };
    case 'EntitiesMerged':
      return { srcId: event.data.srcId, dstId: event.data.dstId };
    case 'RelationDefined':
      return { rel: event.data.rel };
    case 'FactAsserted':
    case 'FactArchived':
    case 'FactRetroCorrected':
      return { factId: event.data.factId };
    case 'FactSuperseded': {
      const previous = current['supersededFactIds'];
      return { supersededFactIds: [...(Array.isArray(previous) ? previous : []), event.data.factId] };
    }
    case 'EventRecorded':
      return { eventId: event.data.eventId };
    case 'EventsLinked':
      return { from: event.data.from, to: event.data.to };
    case 'EpisodeRecorded':
      return { episodeId: event.data.episodeId };
    case 'MentionRecorded':
      return { mentionId: event.data.mentionId };
    case 'CommandUnchanged':
      return event.data.ids;
  }
}
