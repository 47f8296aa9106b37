import { type VersionedKind, normaliseName } from '@memotrace/domain';
import type { PoolClient } from 'pg';
import {
  type BatchPlan,
  type EpisodeContent,
  type TopicContent,
  type Erasable,
  type ErasureRow,
  type EventContent,
  type FactContent,
  type HeadKeys,
  type StoredEntity,
  type StoredHeads,
  type VersionedKey,
  labelRows,
  mentionRows,
} from './batch-plan';
import { epochMs, instantOfEpochMs, instantOrNullOfEpochMs, pgInstant, pgInstantOrNull } from './instants';
import { type FactRow, targetOfRow } from './view-rows';
import { type StoredHead, type VersionClose, type VersionLedger, type VersionRow, headKey } from './version-ledger';

/**
 * SQL side of a batch: one query per versioned table to load the heads, then one
 * statement per table to write the plan. Rows travel as a single JSON array
 * parameter expanded by json_to_recordset (nullable columns and text[] without
 * per-row placeholders).
 */
type Queryable = Pick<PoolClient, 'query'>;

/** A head's content columns are a fact row's. */
interface FactHeadRow extends HeadRow, Omit<FactRow, 'fact_id' | 'recorded_from'> {}

interface HeadRow {
  memory_id: string;
  id: string;
  version_no: number;
  recorded_to: string | null;
}

export async function loadHeads(tx: Queryable, keys: HeadKeys): Promise<StoredHeads> {
  const entities = await loadEntities(tx, keys.entity);
  if (keys.fact.length + keys.event.length + keys.episode.length + keys.topic.length === 0)
    return { facts: new Map(), events: new Map(), episodes: new Map(), topics: new Map(), entities };
  // The latest version is a cheap backward walk of the primary key. Left alone, the planner (stale
  // statistics during catch-up) probes a GiST index by memory_id and sorts, far slower per key.
  const { rows: setting } = await tx.query<{ previous: string }>(
    `SELECT current_setting('enable_sort') AS previous, set_config('enable_sort', 'off', true)`,
  );
  const heads = await loadHeadsByPrimaryKey(tx, keys);
  // Not in a finally: after an error the transaction is aborted, and its rollback drops the setting anyway.
  await tx.query(`SELECT set_config('enable_sort', $1, true)`, [setting[0]!.previous]);
  return { ...heads, entities };
}

/** The stored entities among those the batch registers, and whether each has a name (an erased one has none). */
async function loadEntities(tx: Queryable, keys: readonly VersionedKey[]): Promise<Map<string, StoredEntity>> {
  const entities = new Map<string, StoredEntity>();
  if (keys.length === 0) return entities;
  const { rows } = await tx.query<{ memory_id: string; entity_id: string; named: boolean }>(
    `SELECT e.memory_id, e.entity_id,
            e.name IS NOT NULL OR EXISTS (SELECT 1 FROM rm_entity_labels l
                                           WHERE l.memory_id = e.memory_id AND l.entity_id = e.entity_id AND l.kind = 'name') AS named
       FROM unnest($1::text[], $2::text[]) AS k(memory_id, id)
       JOIN rm_entities e ON e.memory_id = k.memory_id AND e.entity_id = k.id`,
    [keys.map((k) => k.memoryId), keys.map((k) => k.id)],
  );
  for (const row of rows) entities.set(headKey(row.memory_id, row.entity_id), { named: row.named });
  return entities;
}

async function loadHeadsByPrimaryKey(tx: Queryable, keys: Record<VersionedKind, VersionedKey[]>): Promise<Omit<StoredHeads, 'entities'>> {
  const facts = new Map<string, StoredHead<Erasable<FactContent>>>();
  if (keys.fact.length > 0) {
    const { rows } = await tx.query<FactHeadRow>(
      `SELECT k.memory_id, k.id, h.*
         FROM unnest($1::text[], $2::text[]) AS k(memory_id, id)
         CROSS JOIN LATERAL (
           SELECT v.version_no, ${epochMs('v.recorded_to')} AS recorded_to, v.src, v.rel, v.dst_entity, v.dst_literal,
                  ${epochMs('v.valid_from')} AS valid_from, ${epochMs('v.valid_to')} AS valid_to, v.confidence, v.evidence, v.source, v.erased
             FROM rm_fact_versions v
            WHERE v.memory_id = k.memory_id AND v.fact_id = k.id
            ORDER BY v.version_no DESC
            LIMIT 1) AS h`,
      [keys.fact.map((k) => k.memoryId), keys.fact.map((k) => k.id)],
    );
    for (const row of rows) {
      facts.set(headKey(row.memory_id, row.id), {
        versionNo: Number(row.version_no),
        recordedTo: instantOrNullOfEpochMs(row.recorded_to),
        content: {
          src: row.src,
          rel: row.rel,
          dst: targetOfRow(row.dst_entity, row.dst_literal),
          validFrom: instantOfEpochMs(row.valid_from),
          validTo: instantOrNullOfEpochMs(row.valid_to),
          confidence: row.confidence,
          evidence: row.evidence,
          source: row.source,
          ...(row.erased ? { erased: true as const } : {}),
        },
      });
    }
  }
  return {
    facts,
    events: await loadBareHeads(tx, 'rm_event_versions', 'event_id', keys.event),
    episodes: await loadBareHeads(tx, 'rm_episode_versions', 'episode_id', keys.episode),
    topics: await loadBareHeads(tx, 'rm_topic_versions', 'topic_id', keys.topic),
  };
}

/** Heads without content: a new event/episode version never reads the previous one. */
async function loadBareHeads<C>(tx: Queryable, table: string, idColumn: string, keys: VersionedKey[]): Promise<Map<string, StoredHead<C>>> {
  const heads = new Map<string, StoredHead<C>>();
  if (keys.length === 0) return heads;
  const { rows } = await tx.query<HeadRow>(
    `SELECT k.memory_id, k.id, h.version_no, h.recorded_to
       FROM unnest($1::text[], $2::text[]) AS k(memory_id, id)
       CROSS JOIN LATERAL (
         SELECT v.version_no, ${epochMs('v.recorded_to')} AS recorded_to FROM ${table} v
          WHERE v.memory_id = k.memory_id AND v.${idColumn} = k.id
          ORDER BY v.version_no DESC
          LIMIT 1) AS h`,
    [keys.map((k) => k.memoryId), keys.map((k) => k.id)],
  );
  for (const row of rows)
    heads.set(headKey(row.memory_id, row.id), { versionNo: Number(row.version_no), recordedTo: instantOrNullOfEpochMs(row.recorded_to) });
  return heads;
}

export async function writePlan(tx: Queryable, plan: BatchPlan): Promise<void> {
  // Before the inserts: the stored rows are all older than the batch's erasures, the batch's own are erased in the plan.
  await eraseStored(tx, plan.erasures);
  await writeVersions(tx, plan.facts, FACTS);
  await writeVersions(tx, plan.events, EVENTS);
  await writeVersions(tx, plan.episodes, EPISODES);
  await writeVersions(tx, plan.topics, TOPICS);
  await insertJson(
    tx,
    `INSERT INTO rm_entities (memory_id, entity_id, name, recorded_from, position, name_key, erased)
     SELECT memory_id, entity_id, name, recorded_from, position, name_key, erased
       FROM json_to_recordset($1::json) AS r(memory_id text, entity_id text, name text, recorded_from timestamptz, position bigint, ` +
      `name_key text, erased boolean)
     ON CONFLICT (memory_id, entity_id) DO NOTHING`,
    plan.entities.map((e) => ({
      memory_id: e.memoryId,
      entity_id: e.entityId,
      name: e.name,
      recorded_from: pgInstant(e.recordedFrom),
      position: e.position,
      name_key: nameKey(e.name),
      erased: e.erased === true,
    })),
  );
  await insertJson(
    tx,
    `INSERT INTO rm_entity_labels (memory_id, entity_id, kind, value, recorded_from, position, idx, value_key)
     SELECT memory_id, entity_id, kind, value, recorded_from, position, idx, value_key
       FROM json_to_recordset($1::json) AS r(memory_id text, entity_id text, kind text, value text, ` +
      `recorded_from timestamptz, position bigint, idx integer, value_key text)`,
    labelRows(plan).map((l) => ({
      memory_id: l.memoryId,
      entity_id: l.entityId,
      kind: l.kind,
      value: l.value,
      recorded_from: pgInstant(l.recordedFrom),
      position: l.position,
      idx: l.idx,
      value_key: normaliseName(l.value),
    })),
  );
  await insertJson(
    tx,
    `INSERT INTO rm_entity_merges (memory_id, seq, src_id, dst_id, src_root, dst_root, recorded_at)
     SELECT memory_id, seq, src_id, dst_id, src_root, dst_root, recorded_at
       FROM json_to_recordset($1::json) AS r(memory_id text, seq bigint, src_id text, dst_id text, ` +
      `src_root text, dst_root text, recorded_at timestamptz)`,
    plan.merges.map((m) => ({
      memory_id: m.memoryId,
      seq: m.seq,
      src_id: m.srcId,
      dst_id: m.dstId,
      src_root: m.srcRoot,
      dst_root: m.dstRoot,
      recorded_at: pgInstant(m.recordedAt),
    })),
  );
  await insertJson(
    tx,
    `INSERT INTO rm_relations (memory_id, rel, cardinality, recorded_from)
     SELECT memory_id, rel, cardinality, recorded_from
       FROM json_to_recordset($1::json) AS r(memory_id text, rel text, cardinality text, recorded_from timestamptz)
     ON CONFLICT (memory_id, rel, recorded_from) DO UPDATE SET cardinality = excluded.cardinality`,
    [...plan.relations.values()].map((r) => ({
      memory_id: r.memoryId,
      rel: r.rel,
      cardinality: r.cardinality,
      recorded_from: pgInstant(r.recordedFrom),
    })),
  );
  await insertJson(
    tx,
    `INSERT INTO rm_event_links (memory_id, kind, from_event, to_event, qualifier, recorded_from)
     SELECT memory_id, kind, from_event, to_event, qualifier, recorded_from
       FROM json_to_recordset($1::json) AS r(memory_id text, kind text, from_event text, to_event text, qualifier text, recorded_from timestamptz)
     ON CONFLICT (memory_id, kind, from_event, to_event) DO UPDATE SET qualifier = excluded.qualifier, recorded_from = excluded.recorded_from`,
    [...plan.links.values()].map((l) => ({
      memory_id: l.memoryId,
      kind: l.kind,
      from_event: l.from,
      to_event: l.to,
      qualifier: l.qualifier,
      recorded_from: pgInstant(l.recordedFrom),
    })),
  );
  await insertJson(
    tx,
    `INSERT INTO rm_mentions (memory_id, mention_id, doc_id, text, speaker, occurred_at, recorded_from, erased)
     SELECT memory_id, mention_id, doc_id, text, speaker, occurred_at, recorded_from, erased
       FROM json_to_recordset($1::json) AS r(memory_id text, mention_id text, doc_id text, text text, speaker text, ` +
      `occurred_at timestamptz, recorded_from timestamptz, erased boolean)
     ON CONFLICT (memory_id, mention_id) DO NOTHING`,
    mentionRows(plan).map((m) => ({
      memory_id: m.memoryId,
      mention_id: m.mentionId,
      doc_id: m.docId,
      text: m.text,
      speaker: m.speaker,
      occurred_at: pgInstantOrNull(m.occurredAt),
      recorded_from: pgInstant(m.recordedFrom),
      erased: m.erased === true,
    })),
  );
  await insertJson(
    tx,
    `INSERT INTO rm_erasures (memory_id, position, recorded_at, subject_kind, subject_id, entities, facts, events, mentions)
     SELECT memory_id, position, recorded_at, subject_kind, subject_id, entities, facts, events, mentions
       FROM json_to_recordset($1::json) AS r(memory_id text, position bigint, recorded_at timestamptz, subject_kind text, subject_id text, ` +
      `entities text[], facts text[], events text[], mentions text[])`,
    plan.erasures.map(erasureColumns),
  );
}

/** An erasure's row of rm_erasures (ids only: ids never carry content). */
export function erasureColumns(e: ErasureRow): Record<string, unknown> {
  return {
    memory_id: e.memoryId,
    position: e.position,
    recorded_at: pgInstant(e.recordedAt),
    subject_kind: e.subject.kind,
    subject_id: e.subject.id,
    entities: e.entities,
    facts: e.facts,
    events: e.events,
    mentions: e.mentions,
  };
}

/** An entity name's lookup key; none for an erased name (no search finds it). */
export function nameKey(name: string | null): string | null {
  return name === null ? null : normaliseName(name);
}

/**
 * The stored rows of the items the batch's erasures list lose their content in every version
 * (evolve's `eraseContent`): names and name keys, labels, literals and sources, summaries, texts
 * and speakers. Rows already erased are left as they are.
 */
async function eraseStored(tx: Queryable, erasures: readonly ErasureRow[]): Promise<void> {
  if (erasures.length === 0) return;
  const keys = (list: (e: ErasureRow) => string[]) => {
    const memoryIds: string[] = [];
    const ids: string[] = [];
    for (const erasure of erasures) {
      for (const id of list(erasure)) {
        memoryIds.push(erasure.memoryId);
        ids.push(id);
      }
    }
    return [memoryIds, ids];
  };
  const each = async (list: (e: ErasureRow) => string[], sql: (items: string) => string) => {
    const [memoryIds, ids] = keys(list);
    if (ids!.length > 0) await tx.query(sql('unnest($1::text[], $2::text[]) AS k(memory_id, id)'), [memoryIds, ids]);
  };
  await each(
    (e) => e.entities,
    (items) => `UPDATE rm_entities t SET name = NULL, name_key = NULL, erased = true FROM ${items}
                 WHERE t.memory_id = k.memory_id AND t.entity_id = k.id AND NOT t.erased`,
  );
  await each(
    (e) => e.entities,
    (items) => `DELETE FROM rm_entity_labels t USING ${items} WHERE t.memory_id = k.memory_id AND t.entity_id = k.id`,
  );
  // An entity dst is structure: only a literal goes.
  await each(
    (e) => e.facts,
    (items) => `UPDATE rm_fact_versions t SET dst_literal = NULL, dst_text = NULL, source = NULL, erased = true FROM ${items}
                 WHERE t.memory_id = k.memory_id AND t.fact_id = k.id AND NOT t.erased`,
  );
  await each(
    (e) => e.events,
    (items) => `UPDATE rm_event_versions t SET summary = NULL, erased = true FROM ${items}
                 WHERE t.memory_id = k.memory_id AND t.event_id = k.id AND NOT t.erased`,
  );
  await each(
    (e) => e.mentions,
    (items) => `UPDATE rm_mentions t SET text = NULL, speaker = NULL, erased = true FROM ${items}
                 WHERE t.memory_id = k.memory_id AND t.mention_id = k.id AND NOT t.erased`,
  );
  await each(
    (e) => e.topics ?? [],
    (items) => `UPDATE rm_topic_versions t SET title = NULL, summary = NULL, erased = true FROM ${items}
                 WHERE t.memory_id = k.memory_id AND t.topic_id = k.id AND NOT t.erased`,
  );
}

export interface VersionTable<C> {
  table: string;
  idColumn: string;
  /** Column list and json_to_recordset types of the content columns. */
  columns: [name: string, type: string][];
  encode(content: C): Record<string, unknown>;
}

export const FACTS: VersionTable<Erasable<FactContent>> = {
  table: 'rm_fact_versions',
  idColumn: 'fact_id',
  columns: [
    ['src', 'text'],
    ['rel', 'text'],
    ['dst_entity', 'text'],
    ['dst_literal', 'jsonb'],
    ['dst_text', 'text'],
    ['valid_from', 'timestamptz'],
    ['valid_to', 'timestamptz'],
    ['confidence', 'double precision'],
    ['evidence', 'text[]'],
    ['source', 'text'],
    ['erased', 'boolean'],
  ],
  encode: (c) => ({
    src: c.src,
    rel: c.rel,
    dst_entity: typeof c.dst === 'string' ? c.dst : null,
    dst_literal: c.dst === null || typeof c.dst === 'string' ? null : { literal: c.dst.literal, datatype: c.dst.datatype },
    dst_text: c.dst === null || typeof c.dst === 'string' ? null : String(c.dst.literal),
    valid_from: pgInstant(c.validFrom),
    valid_to: pgInstantOrNull(c.validTo),
    confidence: c.confidence,
    evidence: c.evidence,
    source: c.source,
    erased: c.erased === true,
  }),
};

export const EVENTS: VersionTable<Erasable<EventContent>> = {
  table: 'rm_event_versions',
  idColumn: 'event_id',
  columns: [
    ['summary', 'text'],
    ['erased', 'boolean'],
    ['participants', 'jsonb'],
    ['includes_facts', 'text[]'],
    ['span_from', 'timestamptz'],
    ['span_to', 'timestamptz'],
  ],
  encode: (c) => ({
    summary: c.summary,
    erased: c.erased === true,
    participants: c.participants.map((p) => ({ entityId: p.entityId, role: p.role })),
    includes_facts: c.includesFacts,
    span_from: pgInstant(c.timeSpan.from),
    span_to: pgInstantOrNull(c.timeSpan.to),
  }),
};

export const EPISODES: VersionTable<EpisodeContent> = {
  table: 'rm_episode_versions',
  idColumn: 'episode_id',
  columns: [
    ['title', 'text'],
    ['window_from', 'timestamptz'],
    ['window_to', 'timestamptz'],
    ['events', 'text[]'],
  ],
  encode: (c) => ({ title: c.title, window_from: pgInstant(c.window.from), window_to: pgInstantOrNull(c.window.to), events: c.events }),
};

export const TOPICS: VersionTable<Erasable<TopicContent>> = {
  table: 'rm_topic_versions',
  idColumn: 'topic_id',
  columns: [
    ['title', 'text'],
    ['summary', 'text'],
    ['window_from', 'timestamptz'],
    ['window_to', 'timestamptz'],
    ['members', 'text[]'],
    ['member_kinds', 'text[]'],
    ['erased', 'boolean'],
  ],
  encode: (c) => ({
    title: c.title,
    summary: c.summary,
    window_from: pgInstant(c.window.from),
    window_to: pgInstantOrNull(c.window.to),
    members: c.members.map((m) => m.id),
    member_kinds: c.members.map((m) => m.kind),
    erased: c.erased === true,
  }),
};

/** Closes first, so the inserted versions never meet an open stored one (open index) and find their predecessor ended (version chain). */
async function writeVersions<C>(tx: Queryable, ledger: VersionLedger<C>, spec: VersionTable<C>): Promise<void> {
  await closeVersions(tx, spec, ledger.closes);
  const names = spec.columns.map(([name]) => name);
  await insertJson(
    tx,
    `INSERT INTO ${spec.table} (memory_id, ${spec.idColumn}, version_no, recorded_from, recorded_to, prev_recorded_to, ${names.join(', ')})
     SELECT memory_id, id, version_no, recorded_from, recorded_to, prev_recorded_to, ${names.join(', ')}
       FROM json_to_recordset($1::json) AS r(memory_id text, id text, version_no integer, ` +
      `recorded_from timestamptz, recorded_to timestamptz, prev_recorded_to timestamptz,
            ${spec.columns.map(([name, type]) => `${name} ${type}`).join(', ')})`,
    ledger.rows.map((row: VersionRow<C>) => ({
      memory_id: row.memoryId,
      id: row.id,
      version_no: row.versionNo,
      recorded_from: pgInstant(row.recordedFrom),
      recorded_to: pgInstantOrNull(row.recordedTo),
      prev_recorded_to: pgInstantOrNull(row.prevRecordedTo),
      ...spec.encode(row.content),
    })),
  );
}

async function closeVersions<C>(tx: Queryable, spec: VersionTable<C>, closes: readonly VersionClose[]): Promise<void> {
  if (closes.length === 0) return;
  const result = await tx.query(
    `UPDATE ${spec.table} v SET recorded_to = c.recorded_to
       FROM json_to_recordset($1::json) AS c(memory_id text, id text, version_no integer, recorded_to timestamptz)
      WHERE v.memory_id = c.memory_id AND v.${spec.idColumn} = c.id AND v.version_no = c.version_no AND v.recorded_to IS NULL`,
    [JSON.stringify(closes.map((c) => ({ memory_id: c.memoryId, id: c.id, version_no: c.versionNo, recorded_to: pgInstant(c.recordedTo) })))],
  );
  // The heads were read in this transaction: a miss means someone else wrote the read model.
  if (result.rowCount !== closes.length) {
    throw new Error(`${spec.table}: closed ${result.rowCount ?? 0} of ${closes.length} open versions; the read model changed under the projector`);
  }
}

async function insertJson(tx: Queryable, sql: string, rows: readonly Record<string, unknown>[]): Promise<void> {
  if (rows.length > 0) await tx.query(sql, [JSON.stringify(rows)]);
}
