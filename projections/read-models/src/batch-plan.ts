import type {
  Cardinality,
  Change,
  EpisodeContent,
  EventContent,
  FactContent,
  Instant,
  LinkKind,
  MentionView,
  VersionedKind,
} from '@memotrace/domain';
import { versionedItemOf } from '@memotrace/domain';
import type { ProjectedRecord } from '@memotrace/projection';
import { type StoredHead, VersionLedger, headKey } from './version-ledger';

/**
 * What one batch of log records writes to the read models, computed in memory by
 * applying their changes in log order (so several changes of one fact inside a batch
 * keep the fold's semantics) and then written with one statement per table. Entities
 * and mentions are recorded once (the first record wins, as in the fold).
 */
export type { EpisodeContent, EventContent, FactContent };

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

/** The versioned items a batch touches: their stored heads must be loaded before planning. */
export function versionedKeys(records: readonly ProjectedRecord[]): Record<VersionedKind, VersionedKey[]> {
  const keys: Record<VersionedKind, Map<string, VersionedKey>> = { fact: new Map(), event: new Map(), episode: new Map() };
  for (const { memoryId, changes } of records) {
    for (const change of changes) {
      const item = versionedItemOf(change);
      if (item) keys[item.kind].set(headKey(memoryId, item.id), { memoryId, id: item.id });
    }
  }
  return { fact: [...keys.fact.values()], event: [...keys.event.values()], episode: [...keys.episode.values()] };
}

export function planBatch(batch: readonly ProjectedRecord[], heads: StoredHeads): BatchPlan {
  const plan = emptyPlan(heads);
  for (const record of batch) applyToPlan(plan, record);
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

export function applyToPlan(plan: BatchPlan, { memoryId, position, recordedAt, changes }: ProjectedRecord): void {
  for (const change of changes) applyChange(plan, memoryId, position, recordedAt, change);
}

function applyChange(plan: BatchPlan, memoryId: string, position: number, at: Instant, change: Change): void {
  switch (change.change) {
    case 'entity': {
      const { entityId, name, aliases, types } = change;
      plan.entities.push({ memoryId, entityId, name, recordedFrom: at, position });
      pushLabels(plan.labels, { memoryId, entityId, kind: 'alias', recordedFrom: at, position }, aliases);
      pushLabels(plan.labels, { memoryId, entityId, kind: 'type', recordedFrom: at, position }, types);
      return;
    }
    case 'labels': {
      const { entityId, aliases, types } = change;
      pushLabels(plan.labels, { memoryId, entityId, kind: 'alias', recordedFrom: at, position }, aliases);
      pushLabels(plan.labels, { memoryId, entityId, kind: 'type', recordedFrom: at, position }, types);
      return;
    }
    case 'merge': {
      const { srcId, dstId, srcRoot, dstRoot } = change;
      plan.merges.push({ memoryId, seq: position, srcId, dstId, srcRoot, dstRoot, recordedAt: at });
      return;
    }
    case 'relation':
      plan.relations.set(headKey(memoryId, change.rel), { memoryId, rel: change.rel, cardinality: change.cardinality, recordedFrom: at });
      return;
    case 'opened':
      switch (change.kind) {
        case 'fact': {
          // A known fact keeps the src/rel/dst of its first version (the fold names them once).
          const { src, rel, dst } = plan.facts.latest(memoryId, change.id) ?? change.content;
          const { validFrom, validTo, confidence, evidence, source } = change.content;
          plan.facts.push(memoryId, change.id, { src, rel, dst, validFrom, validTo, confidence, evidence: evidence.slice(), source }, at);
          return;
        }
        case 'event':
          plan.events.push(memoryId, change.id, change.content, at);
          return;
        case 'episode':
          plan.episodes.push(memoryId, change.id, change.content, at);
          return;
        default:
          return change satisfies never;
      }
    case 'closed':
      ledgerOf(plan, change.kind).close(memoryId, change.id, at);
      return;
    case 'corrected': {
      const open = plan.facts.openContent(memoryId, change.id);
      if (open) plan.facts.push(memoryId, change.id, { ...open, validFrom: change.validFrom, validTo: change.validTo }, at);
      return;
    }
    case 'link': {
      const { kind, from, to, qualifier } = change;
      plan.links.set(`${memoryId}\u0000${kind}\u0000${from}\u0000${to}`, { memoryId, kind, from, to, qualifier, recordedFrom: at });
      return;
    }
    case 'mention': {
      const { mentionId, docId, text, speaker, occurredAt } = change;
      plan.mentions.push({ memoryId, mentionId, docId, text, speaker, occurredAt, recordedFrom: at });
      return;
    }
    default:
      return change satisfies never;
  }
}

function ledgerOf(plan: BatchPlan, kind: VersionedKind): VersionLedger<unknown> {
  switch (kind) {
    case 'fact':
      return plan.facts;
    case 'event':
      return plan.events;
    case 'episode':
      return plan.episodes;
    default:
      return kind satisfies never;
  }
}

/** One label row per value, numbered in order (a module function: this runs per log event). */
function pushLabels(rows: LabelRow[], label: Omit<LabelRow, 'value' | 'idx'>, values: readonly string[]): void {
  for (let idx = 0; idx < values.length; idx++) rows.push({ ...label, value: values[idx]!, idx });
}
