import type {
  Cardinality,
  Change,
  ContentErased,
  EpisodeContent,
  TopicContent,
  ErasedItems,
  ErasureSubject,
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
 *
 * An erasure (SPEC §5.2) changes the past: the rows of the items it lists lose their content,
 * those planned before it in the batch here (the rows the writer inserts never held it), the
 * stored ones by the writer's updates (`erasures`), which run before the batch's inserts. Rows
 * planned after it are new content.
 */
export type { EpisodeContent, EventContent, FactContent, TopicContent };

/** A version's content as stored: `erased` once an erasure removed it (a retro-correction copies the flag, as in evolve). */
export type Erasable<C> = C & { erased?: true };

export interface EntityRow {
  memoryId: string;
  entityId: string;
  /** Null when erased, or read after its key was destroyed. */
  name: string | null;
  recordedFrom: Instant;
  position: number;
  erased?: true;
}

/**
 * An entity's alias or type, or (`name`) the name a registration of the erased entity gives it
 * again: the entity's row keeps its first registration, so a cut before the new name does not see it.
 */
export type LabelKind = 'alias' | 'type' | 'name';

export interface LabelRow {
  memoryId: string;
  entityId: string;
  kind: LabelKind;
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

/** One erasure, as the search side reads it: which items' content went, at which log position. */
export interface ErasureRow extends ErasedItems {
  memoryId: string;
  position: number;
  recordedAt: Instant;
  subject: ErasureSubject;
}

/** A stored entity the batch registers: whether it has a name (first or given again; a registration names an erased one again). */
export interface StoredEntity {
  named: boolean;
}

export interface StoredHeads {
  facts: ReadonlyMap<string, StoredHead<Erasable<FactContent>>>;
  events: ReadonlyMap<string, StoredHead<EventContent>>;
  episodes: ReadonlyMap<string, StoredHead<EpisodeContent>>;
  topics: ReadonlyMap<string, StoredHead<Erasable<TopicContent>>>;
  entities: ReadonlyMap<string, StoredEntity>;
}

/** An entity the batch registers or erases, as it stands after the changes planned so far. */
interface EntitySlot {
  /** Registered first in this batch: its row to insert (erased in place by the batch's erasures); null when stored. */
  row: EntityRow | null;
  /** Whether it has a name now: a registration names it only when it has none (erased). */
  named: boolean;
}

export interface BatchPlan {
  facts: VersionLedger<Erasable<FactContent>>;
  events: VersionLedger<Erasable<EventContent>>;
  episodes: VersionLedger<EpisodeContent>;
  topics: VersionLedger<Erasable<TopicContent>>;
  /** One row per entity the batch registers first, with its first name (null once erased). */
  entities: EntityRow[];
  /** As logged: `labelRows` leaves out those an erasure removed. */
  labels: LabelRow[];
  merges: MergeInsert[];
  /** Last write wins, as in evolve's maps. */
  relations: Map<string, RelationRow>;
  links: Map<string, LinkRow>;
  /** As logged: `mentionRows` leaves out the erased texts. */
  mentions: MentionRow[];
  /** In log order; what they list is erased in the stored rows too (`headKey`s below). */
  erasures: ErasureRow[];
  /** Mentions erased (by `headKey`): their rows always come before the erasure (the first record wins). */
  erasedMentions: Set<string>;
  /** Per erased entity (`headKey`), how many `labels` were planned at its latest erasure: those before are gone. */
  labelsErasedBefore: Map<string, number>;
  /** The entities the batch registers or erases so far (by `headKey`), and the stored ones among those it registers. */
  entitySlots: Map<string, EntitySlot>;
  storedEntities: ReadonlyMap<string, StoredEntity>;
}

export interface VersionedKey {
  memoryId: string;
  id: string;
}

export type HeadKeys = Record<VersionedKind | 'entity', VersionedKey[]>;

/** The versioned items a batch touches and the entities it registers: their stored heads must be loaded before planning. */
export function versionedKeys(records: readonly ProjectedRecord[]): HeadKeys {
  const keys: Record<keyof HeadKeys, Map<string, VersionedKey>> = {
    fact: new Map(),
    event: new Map(),
    episode: new Map(),
    topic: new Map(),
    entity: new Map(),
  };
  for (const { memoryId, changes } of records) {
    for (const change of changes) {
      const item = change.change === 'entity' ? { kind: 'entity' as const, id: change.entityId } : versionedItemOf(change);
      if (item) keys[item.kind].set(headKey(memoryId, item.id), { memoryId, id: item.id });
    }
  }
  return {
    fact: [...keys.fact.values()],
    event: [...keys.event.values()],
    episode: [...keys.episode.values()],
    topic: [...keys.topic.values()],
    entity: [...keys.entity.values()],
  };
}

export function planBatch(batch: readonly ProjectedRecord[], heads: StoredHeads): BatchPlan {
  const plan = emptyPlan(heads);
  for (const record of batch) applyToPlan(plan, record);
  return plan;
}

/** A plan to feed event by event (`applyToPlan`): the rebuild folds the whole log into one. */
export function emptyPlan(
  heads: StoredHeads = { facts: new Map(), events: new Map(), episodes: new Map(), topics: new Map(), entities: new Map() },
): BatchPlan {
  return {
    facts: new VersionLedger(heads.facts),
    events: new VersionLedger(heads.events),
    episodes: new VersionLedger(heads.episodes),
    topics: new VersionLedger(heads.topics),
    entities: [],
    labels: [],
    merges: [],
    relations: new Map(),
    links: new Map(),
    mentions: [],
    erasures: [],
    erasedMentions: new Set(),
    labelsErasedBefore: new Map(),
    entitySlots: new Map(),
    storedEntities: heads.entities,
  };
}

export function applyToPlan(plan: BatchPlan, { memoryId, position, recordedAt, changes }: ProjectedRecord): void {
  for (const change of changes) applyChange(plan, memoryId, position, recordedAt, change);
}

function applyChange(plan: BatchPlan, memoryId: string, position: number, at: Instant, change: Change): void {
  switch (change.change) {
    case 'entity': {
      const { entityId, name, aliases, types } = change;
      const registered = registerEntity(plan, memoryId, entityId, name, at, position);
      if (registered === 'unchanged') return;
      if (registered === 'named again') pushLabels(plan.labels, { memoryId, entityId, kind: 'name', recordedFrom: at, position }, [name!]);
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
      // A later declaration at the same record time replaces an earlier one, as the fold does.
      plan.relations.set(`${headKey(memoryId, change.rel)}\u0000${at}`, {
        memoryId,
        rel: change.rel,
        cardinality: change.cardinality,
        recordedFrom: at,
      });
      return;
    case 'opened':
      switch (change.kind) {
        case 'fact': {
          // A known fact keeps the src/rel/dst of its first version (the fold names them once), but
          // an erased literal is named again by the assertion (evolve's openItemVersion).
          const known = plan.facts.latest(memoryId, change.id);
          const { src, rel } = known ?? change.content;
          const dst = known?.dst ?? change.content.dst;
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
        case 'topic':
          plan.topics.push(memoryId, change.id, change.content, at);
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
    case 'erased':
      eraseInPlan(plan, memoryId, position, at, change);
      return;
    case 'gate':
    case 'tiers':
      // Settings of the memory's writers and its evolution: no read model answers them.
      return;
    default:
      return change satisfies never;
  }
}

/**
 * As evolve: a new entity is registered; a registration of an erased one (no name) names it again,
 * as new content (a `name` label, from its record time on); any other changes nothing (its labels neither).
 */
function registerEntity(
  plan: BatchPlan,
  memoryId: string,
  entityId: string,
  name: string | null,
  at: Instant,
  position: number,
): 'registered' | 'named again' | 'unchanged' {
  const key = headKey(memoryId, entityId);
  const slot = entitySlot(plan, key);
  if (!slot) {
    const row: EntityRow = { memoryId, entityId, name, recordedFrom: at, position };
    plan.entities.push(row);
    plan.entitySlots.set(key, { row, named: name !== null });
    return 'registered';
  }
  if (slot.named || name === null) return 'unchanged';
  slot.named = true;
  return 'named again';
}

function entitySlot(plan: BatchPlan, key: string): EntitySlot | undefined {
  let slot = plan.entitySlots.get(key);
  if (!slot) {
    const stored = plan.storedEntities.get(key);
    if (!stored) return undefined;
    slot = { row: null, named: stored.named };
    plan.entitySlots.set(key, slot);
  }
  return slot;
}

/** What each listed item loses is evolve's `eraseContent`: the ids come from the change, never decided here. */
function eraseInPlan(plan: BatchPlan, memoryId: string, position: number, at: Instant, erased: ContentErased): void {
  const { subject, entities, facts, events, mentions } = erased;
  const { topics } = erased;
  plan.erasures.push({ memoryId, position, recordedAt: at, subject, entities, facts, events, mentions, ...(topics !== undefined ? { topics } : {}) });
  for (const id of entities) {
    const key = headKey(memoryId, id);
    plan.labelsErasedBefore.set(key, plan.labels.length);
    // A stored row not loaded here (the batch does not register it) is the writer's to erase.
    const slot = entitySlot(plan, key);
    if (!slot) continue;
    slot.named = false;
    if (slot.row) {
      slot.row.name = null;
      slot.row.erased = true;
    }
  }
  for (const id of facts) plan.facts.rewrite(memoryId, id, erasedFact);
  for (const id of events) plan.events.rewrite(memoryId, id, erasedEvent);
  for (const id of erased.topics ?? []) plan.topics.rewrite(memoryId, id, erasedTopic);
  for (const id of mentions) plan.erasedMentions.add(headKey(memoryId, id));
}

/** A literal goes (an entity dst is structure and stays), and the source. */
function erasedFact(content: Erasable<FactContent>): Erasable<FactContent> {
  return { ...content, dst: typeof content.dst === 'string' ? content.dst : null, source: null, erased: true };
}

function erasedEvent(content: Erasable<EventContent>): Erasable<EventContent> {
  return { ...content, summary: null, erased: true };
}

function erasedTopic(content: Erasable<TopicContent>): Erasable<TopicContent> {
  return { ...content, title: null, summary: null, erased: true };
}

/** The label rows to insert: those of an entity planned before its erasure are left out, later ones are new content. */
export function labelRows(plan: BatchPlan): LabelRow[] {
  if (plan.labelsErasedBefore.size === 0) return plan.labels;
  return plan.labels.filter((l, i) => i >= (plan.labelsErasedBefore.get(headKey(l.memoryId, l.entityId)) ?? 0));
}

/** The mention rows to insert: a mention erased in the batch is inserted without its text and speaker. */
export function mentionRows(plan: BatchPlan): MentionRow[] {
  if (plan.erasedMentions.size === 0) return plan.mentions;
  return plan.mentions.map((m) =>
    plan.erasedMentions.has(headKey(m.memoryId, m.mentionId)) ? { ...m, text: null, speaker: null, erased: true } : m,
  );
}

function ledgerOf(plan: BatchPlan, kind: VersionedKind): VersionLedger<unknown> {
  switch (kind) {
    case 'fact':
      return plan.facts;
    case 'event':
      return plan.events;
    case 'episode':
      return plan.episodes;
    case 'topic':
      return plan.topics;
    default:
      return kind satisfies never;
  }
}

/** One label row per value, numbered in order (a module function: this runs per log event). */
function pushLabels(rows: LabelRow[], label: Omit<LabelRow, 'value' | 'idx'>, values: readonly string[]): void {
  for (let idx = 0; idx < values.length; idx++) rows.push({ ...label, value: values[idx]!, idx });
}
