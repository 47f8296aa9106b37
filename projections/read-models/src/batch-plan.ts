import type { Cardinality, EdgeTarget, Instant, LinkKind, MentionView, Participant } from '@memotrace/domain';
import type { LoggedMemoryEvent } from '@memotrace/memory-log';
import { type StoredHead, VersionLedger, headKey } from './version-ledger';

/**
 * What one batch of log events writes to the read models, computed in memory in
 * log order (so several touches of one fact inside a batch keep evolve's
 * semantics) and then written with one statement per table.
 * Assumes a log produced by the deciders: entities and mentions are never
 * registered twice (first registration wins here).
 */
export interface FactContent {
  src: string;
  rel: string;
  dst: EdgeTarget;
  validFrom: Instant;
  validTo: Instant | null;
  confidence: number | null;
  evidence: string[];
  source: string | null;
}

export interface EventContent {
  summary: string;
  participants: Participant[];
  includesFacts: string[];
  timeSpan: { from: Instant; to: Instant | null };
}

export interface EpisodeContent {
  title: string;
  window: { from: Instant; to: Instant | null };
  events: string[];
}

export interface EntityRow {
  memoryId: string;
  entityId: string;
  name: string;
  recordedFrom: Instant;
  position: number;
}

export interface LabelRow {
  memoryId: string;
  entityId: string;
  kind: 'alias' | 'type';
  value: string;
  recordedFrom: Instant;
  position: number;
  idx: number;
}

export interface MergeInsert {
  memoryId: string;
  seq: number;
  srcId: string;
  dstId: string;
  srcRoot: string;
  dstRoot: string;
  recordedAt: Instant;
}

export interface RelationRow {
  memoryId: string;
  rel: string;
  cardinality: Cardinality;
  recordedFrom: Instant;
}

export interface LinkRow {
  memoryId: string;
  kind: LinkKind;
  from: string;
  to: string;
  qualifier: string | null;
  recordedFrom: Instant;
}

export interface MentionRow extends MentionView {
  memoryId: string;
}

export interface StoredHeads {
  facts: ReadonlyMap<string, StoredHead<FactContent>>;
  events: ReadonlyMap<string, StoredHead<EventContent>>;
  episodes: ReadonlyMap<string, StoredHead<EpisodeContent>>;
}

export interface BatchPlan {
  facts: VersionLedger<FactContent>;
  events: VersionLedger<EventContent>;
  episodes: VersionLedger<EpisodeContent>;
  entities: EntityRow[];
  labels: LabelRow[];
  merges: MergeInsert[];
  /** Last write wins, as in evolve's maps. */
  relations: Map<string, RelationRow>;
  links: Map<string, LinkRow>;
  mentions: MentionRow[];
}

export interface VersionedKey {
  memoryId: string;
  id: string;
}

/** The versioned records a batch touches: their stored heads must be loaded before planning. */
export function versionedKeys(events: readonly LoggedMemoryEvent[]): { facts: VersionedKey[]; events: VersionedKey[]; episodes: VersionedKey[] } {
  const facts = new Map<string, VersionedKey>();
  const occurrences = new Map<string, VersionedKey>();
  const episodes = new Map<string, VersionedKey>();
  const add = (map: Map<string, VersionedKey>, memoryId: string, id: string) => map.set(headKey(memoryId, id), { memoryId, id });
  for (const { memoryId, event } of events) {
    switch (event.type) {
      case 'FactAsserted':
      case 'FactArchived':
      case 'FactRetroCorrected':
      case 'FactSuperseded':
        add(facts, memoryId, event.data.factId);
        break;
      case 'EventRecorded':
        add(occurrences, memoryId, event.data.eventId);
        break;
      case 'EpisodeRecorded':
        add(episodes, memoryId, event.data.episodeId);
        break;
      default:
        break;
    }
  }
  return { facts: [...facts.values()], events: [...occurrences.values()], episodes: [...episodes.values()] };
}

export function planBatch(batch: readonly LoggedMemoryEvent[], heads: StoredHeads): BatchPlan {
  const plan = emptyPlan(heads);
  for (const logged of batch) applyToPlan(plan, logged);
  return plan;
}

/** A plan to feed event by event (`applyToPlan`): the rebuild folds the whole log into one. */
export function emptyPlan(heads: StoredHeads = { facts: new Map(), events: new Map(), episodes: new Map() }): BatchPlan {
  return {
    facts: new VersionLedger(heads.facts),
    events: new VersionLedger(heads.events),
    episodes: new VersionLedger(heads.episodes),
    entities: [],
    labels: [],
    merges: [],
    relations: new Map(),
    links: new Map(),
    mentions: [],
  };
}

export function applyToPlan(plan: BatchPlan, { memoryId, position, event }: LoggedMemoryEvent): void {
  const at = event.meta.recordedAt;
  switch (event.type) {
    case 'EntityRegistered': {
      const { entityId, name, aliases, types } = event.data;
      plan.entities.push({ memoryId, entityId, name, recordedFrom: at, position });
      pushLabels(plan.labels, { memoryId, entityId, kind: 'alias', recordedFrom: at, position }, aliases);
      pushLabels(plan.labels, { memoryId, entityId, kind: 'type', recordedFrom: at, position }, types);
      return;
    }
    case 'EntityAliasesAdded': {
      const { entityId, aliases, types } = event.data;
      pushLabels(plan.labels, { memoryId, entityId, kind: 'alias', recordedFrom: at, position }, aliases);
      pushLabels(plan.labels, { memoryId, entityId, kind: 'type', recordedFrom: at, position }, types);
      return;
    }
    case 'EntitiesMerged':
      plan.merges.push({ memoryId, seq: position, ...event.data, recordedAt: at });
      return;
    case 'RelationDefined':
      plan.relations.set(headKey(memoryId, event.data.rel), { memoryId, ...event.data, recordedFrom: at });
      return;
    case 'FactAsserted': {
      const { factId, src, rel, dst, validFrom, validTo, confidence, evidence, source } = event.data;
      // A known fact keeps the src/rel/dst of its first assertion (evolve creates the record once).
      const known = plan.facts.latest(memoryId, factId) ?? { src, rel, dst };
      plan.facts.push(memoryId, factId, { src: known.src, rel: known.rel, dst: known.dst, validFrom, validTo, confidence, evidence: evidence.slice(), source }, at);
      return;
    }
    case 'FactArchived':
      plan.facts.close(memoryId, event.data.factId, at);
      return;
    case 'FactRetroCorrected':
    case 'FactSuperseded': {
      const open = plan.facts.openContent(memoryId, event.data.factId);
      if (open) plan.facts.push(memoryId, event.data.factId, { ...open, validFrom: event.data.validFrom, validTo: event.data.validTo }, at);
      return;
    }
    case 'EventRecorded': {
      const { eventId, summary, participants, includesFacts, timeSpan } = event.data;
      plan.events.push(memoryId, eventId, { summary, participants, includesFacts, timeSpan }, at);
      return;
    }
    case 'EventsLinked': {
      const { kind, from, to, qualifier } = event.data;
      plan.links.set(`${memoryId}\u0000${kind}\u0000${from}\u0000${to}`, { memoryId, kind, from, to, qualifier, recordedFrom: at });
      return;
    }
    case 'EpisodeRecorded': {
      const { episodeId, title, window, events } = event.data;
      plan.episodes.push(memoryId, episodeId, { title, window, events }, at);
      return;
    }
    case 'MentionRecorded':
      plan.mentions.push({ memoryId, ...event.data, recordedFrom: at });
      return;
  }
}

/** One label row per value, numbered in order (a module function: this runs per log event). */
function pushLabels(rows: LabelRow[], label: Omit<LabelRow, 'value' | 'idx'>, values: readonly string[]): void {
  for (let idx = 0; idx < values.length; idx++) rows.push({ ...label, value: values[idx]!, idx });
}
