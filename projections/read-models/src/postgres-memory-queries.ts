import {
  type Cardinality,
  type ChangeCount,
  type ChangeView,
  type Checkpointed,
  type Claim,
  type ClaimGround,
  type Cut,
  type EntityFilter,
  type EntityView,
  type EpisodeView,
  type TopicView,
  type EventFilter,
  type EventView,
  type FactFilter,
  type FactView,
  type Instant,
  type MentionFilter,
  type MentionView,
  type Page,
  type ProjectedMemoryQueries,
  canonicalTarget,
  compareChanges,
  saysTarget,
  targetKey,
  compareDocumentOrder,
  compareIds,
  contains,
  normaliseName,
  srcIds,
} from '@memotrace/domain';
import { inTransaction } from '@memotrace/postgres';
import { projectedPosition, projectedPositionSql } from '@memotrace/projection';
import type { Pool, PoolClient } from 'pg';
import { cutPredicate, listedMembers, recordPredicate, topicCut } from './cut-sql';
import { epochMs, instantOfEpochMs, instantOrNullOfEpochMs, pgInstant } from './instants';
import { MergeForest, type MergeRow } from './merge-forest';
import { namedStatement } from './named-statement';
import type { LabelKind } from './batch-plan';
import { READ_MODELS_PROJECTION } from './read-models-projection';
import {
  EVENT_COLUMNS,
  type EventRow,
  FACT_COLUMNS,
  type FactRow,
  MENTION_COLUMNS,
  type MentionRow,
  eventViewOfRow,
  factViewOfRow,
  mentionViewOfRow,
} from './view-rows';

type Queryable = Pick<PoolClient, 'query'>;

/** Which merges a query sees: up to and including a record time, strictly before one, or all. */
type MergeHorizon = { through: Instant } | { before: Instant } | 'all';

/**
 * Time-cut reads over the read models, answering exactly what replay answers
 * (libs/domain/src/cut.ts over a log folded to the cut's record time). What is in a
 * cut is decided by the domain's rules (visibility.ts), translated to SQL by cut-sql.ts:
 * e.g. a version is in the cut iff `recorded_from <= r < recorded_to` (and its validity
 * holds), the SQL twin of "open in the state folded up to r". Merges are few, so the
 * merge forest at r is rebuilt in JS with the domain's own functions; queries of
 * more than one statement run in one REPEATABLE READ snapshot so the forest and
 * the rows agree while the projector commits.
 */
export class PostgresMemoryQueries implements ProjectedMemoryQueries {
  constructor(private readonly pool: Pool) {}

  async facts(memoryId: string, cut: Cut, filter: FactFilter): Promise<FactView[]> {
    return (await this.checkpointedFacts(memoryId, cut, filter)).answer;
  }

  /**
   * One statement when the filter names entities that no merge known at r joins to another (the
   * usual case): the merges and the checkpoint come with the rows, from the same snapshot. Otherwise
   * the filter needs the merge classes first, read with the rows and the checkpoint in one snapshot.
   */
  async checkpointedFacts(memoryId: string, cut: Cut, filter: FactFilter): Promise<Checkpointed<FactView[]>> {
    const alone = factsStatement(memoryId, cut, filter, (id) => [id]);
    const projection = `$${alone.params.push(READ_MODELS_PROJECTION)}`;
    const { rows } = await this.pool.query<{ [K in keyof FactRow]: FactRow[K] | null } & { merges: MergeJson[] | null; checkpoint: string }>(
      namedStatement(
        `SELECT m.merges, ${projectedPositionSql(projection)} AS checkpoint, f.*
           FROM (${MERGES_JSON} WHERE memory_id = $1 AND ${recordPredicate('merge', '', '$2')}) m
           LEFT JOIN LATERAL (${alone.sql}) f ON true`,
        alone.params,
      ),
    );
    const forest = new MergeForest((rows[0]?.merges ?? []).map(mergeRowOfJson));
    const named = [...(srcIds(filter) ?? []), ...(filter.dst === undefined ? [] : [filter.dst])];
    if (!named.some((id) => forest.classOf(id).length > 1)) {
      return { answer: factViews(rows.filter((row) => row.fact_id !== null) as FactRow[], forest), checkpoint: Number(rows[0]!.checkpoint) };
    }
    return this.snapshot(async (q) => {
      const merged = await loadForest(q, memoryId, { through: cut.recordedAt });
      const statement = factsStatement(memoryId, cut, filter, (id) => merged.classOf(id));
      const answer = factViews((await q.query<FactRow>(namedStatement(statement.sql, statement.params))).rows, merged);
      return { answer, checkpoint: await projectedPosition(q, READ_MODELS_PROJECTION) };
    });
  }

  history(memoryId: string, factId: string, recordedAt?: Instant): Promise<FactView[] | null> {
    return this.snapshot(async (q) => {
      const forest = await loadForest(q, memoryId, recordedAt === undefined ? 'all' : { through: recordedAt });
      const params: unknown[] = [memoryId, factId];
      const horizon = recordedAt === undefined ? '' : `AND recorded_from <= $${params.push(pgInstant(recordedAt))}::timestamptz`;
      const { rows } = await q.query<FactRow>(
        `SELECT ${FACT_COLUMNS} FROM rm_fact_versions WHERE memory_id = $1 AND fact_id = $2 ${horizon} ORDER BY version_no`,
        params,
      );
      if (rows.length === 0) return null;
      return rows.map((row) => historyView(row, forest, recordedAt));
    });
  }

  /**
   * Each claim's ground in one snapshot (SPEC 5.3, `checkClaim`): the relations' declarations at r; the versions of each
   * claim's own facts, one join of the claims (a row per member of its src and dst classes) with the fact versions by
   * src, rel and dst; and, for the claims of a `one` relation, the versions in each claim's cut of its src's facts with
   * that rel, one join likewise.
   */
  claimGrounds(memoryId: string, recordedAt: Instant, claims: readonly Claim[]): Promise<ClaimGround[]> {
    return this.snapshot(async (q) => {
      const forest = await loadForest(q, memoryId, { through: recordedAt });
      const at = pgInstant(recordedAt);
      const { rows: relations } = await q.query<{ rel: string; cardinality: Cardinality }>(
        `SELECT DISTINCT ON (rel) rel, cardinality FROM rm_relations
          WHERE memory_id = $1 AND rel = ANY($2::text[]) AND recorded_from <= $3::timestamptz
          ORDER BY rel, recorded_from DESC`,
        [memoryId, [...new Set(claims.map((c) => c.rel))], at],
      );
      const cardinality = new Map(relations.map((row) => [row.rel, row.cardinality]));
      const wanted = claims.map((c) => targetKey(canonicalTarget(forest, c.dst)));
      const grounds: ClaimGround[] = claims.map((c) => ({ versions: [], others: [], cardinality: cardinality.get(c.rel) ?? 'many' }));

      const asked: [number[], string[], string[], (string | null)[], (string | null)[]] = [[], [], [], [], []];
      claims.forEach((c, i) => {
        const dsts = typeof c.dst === 'string' ? forest.classOf(c.dst).map((id) => [id, null] as const) : [[null, String(c.dst.literal)] as const];
        for (const src of forest.classOf(c.src))
          for (const [entity, text] of dsts) {
            asked[0].push(i);
            asked[1].push(src);
            asked[2].push(c.rel);
            asked[3].push(entity);
            asked[4].push(text);
          }
      });
      const { rows: own } = await q.query<FactRow & { claim: number }>(
        `SELECT c.claim, ${FACT_COLUMNS}
           FROM unnest($2::int[], $3::text[], $4::text[], $5::text[], $6::text[]) AS c(claim, c_src, c_rel, c_entity, c_text)
           JOIN rm_fact_versions ON memory_id = $1 AND src = c.c_src AND rel = c.c_rel
                                AND (dst_entity = c.c_entity OR dst_text = c.c_text) AND recorded_from <= $7::timestamptz
          ORDER BY c.claim, fact_id, version_no`,
        [memoryId, ...asked, at],
      );
      for (const row of own) {
        const view = historyView(row, forest, recordedAt);
        // dst_text is the literal's text: the datatype decides too.
        if (saysTarget(view, wanted[row.claim]!)) grounds[row.claim]!.versions.push(view);
      }

      // The versions in each one-claim's cut of its src's facts with its rel, for every claim at once ('*': no validity).
      const ones: [number[], string[], string[], (string | null)[]] = [[], [], [], []];
      claims.forEach((c, i) => {
        if (grounds[i]!.cardinality !== 'one') return;
        for (const src of forest.classOf(c.src)) {
          ones[0].push(i);
          ones[1].push(src);
          ones[2].push(c.rel);
          ones[3].push(c.validAt === '*' ? null : pgInstant(c.validAt));
        }
      });
      if (ones[0].length > 0) {
        const cut = (validAt: string | null) => cutPredicate('fact', '', { memoryId: '$1', recordedAt: '$6', validAt });
        const { rows } = await q.query<FactRow & { claim: number }>(
          `SELECT c.claim, ${FACT_COLUMNS}
             FROM unnest($2::int[], $3::text[], $4::text[], $5::timestamptz[]) AS c(claim, c_src, c_rel, c_valid)
             JOIN rm_fact_versions ON src = c.c_src AND rel = c.c_rel AND ${cut(null)} AND (c.c_valid IS NULL OR ${cut('c.c_valid')})
            ORDER BY c.claim, fact_id`,
          [memoryId, ...ones, at],
        );
        // In the cut a version is open as far as r knows (factViews).
        for (const row of rows) {
          const view = factViewOfRow(row, forest, null);
          if (!saysTarget(view, wanted[row.claim]!)) grounds[row.claim]!.others.push(view);
        }
      }
      return grounds;
    });
  }

  entity(memoryId: string, entityId: string, recordedAt: Instant): Promise<EntityView | null> {
    return this.snapshot(async (q) => {
      const forest = await loadForest(q, memoryId, { through: recordedAt });
      const [view] = await entityViews(q, memoryId, forest, recordedAt, [entityId]);
      return view ?? null;
    });
  }

  /**
   * The entities whose name, alias or type key matches (indexed: rm_entities_name_key,
   * rm_entity_labels_value_key), or every visible one; each stands for its class at r, whose
   * root is listed. Sorted and paged here, as entitiesAt does: no database collation decides it.
   */
  entities(memoryId: string, recordedAt: Instant, filter: EntityFilter): Promise<EntityView[]> {
    return this.snapshot(async (q) => {
      const forest = await loadForest(q, memoryId, { through: recordedAt });
      const at = [memoryId, pgInstant(recordedAt)];
      const visible = cutPredicate('entity', 'e', { memoryId: '$1', recordedAt: '$2', validAt: null });
      const labelled = (kind: LabelKind, keyTerm: string) =>
        `SELECT l.entity_id FROM rm_entity_labels l JOIN rm_entities e ON e.memory_id = l.memory_id AND e.entity_id = l.entity_id
          WHERE l.memory_id = $1 AND l.kind = '${kind}' AND ${keyTerm} AND ${recordPredicate('entity', 'l', '$2')}
            AND l.position >= e.position AND ${visible}`;
      // Each select, with its parameters, names members; the answer lists their roots that every select names.
      const selects: [sql: string, params: unknown[]][] = [];
      if (filter.name !== undefined) {
        const key = normaliseName(filter.name);
        const prefix = filter.match === 'prefix';
        const term = (column: string) => (prefix ? `${column} LIKE $3` : `${column} = $3`);
        selects.push([
          // An erased name has no key; a name given again after an erasure is a label from its record time on.
          `SELECT e.entity_id FROM rm_entities e WHERE ${visible} AND ${term('e.name_key')}
           UNION ${labelled('alias', term('l.value_key'))} UNION ${labelled('name', term('l.value_key'))}`,
          [...at, prefix ? key.replace(/[\\%_]/g, '\\$&') + '%' : key],
        ]);
      }
      if (filter.type !== undefined) selects.push([labelled('type', 'l.value_key = $3'), [...at, normaliseName(filter.type)]]);
      if (filter.ids !== undefined)
        selects.push([`SELECT e.entity_id FROM rm_entities e WHERE ${visible} AND e.entity_id = ANY($3::text[])`, [...at, filter.ids]]);
      if (selects.length === 0) selects.push([`SELECT e.entity_id FROM rm_entities e WHERE ${visible}`, at]);
      let roots: Set<string> | undefined;
      for (const [sql, params] of selects) {
        const { rows } = await q.query<{ entity_id: string }>(sql, params);
        const named = new Set(rows.map((row) => forest.canonical(row.entity_id)));
        roots = roots === undefined ? named : new Set([...roots].filter((id) => named.has(id)));
      }
      const after = filter.after;
      const page = [...roots!].filter((id) => after === undefined || compareIds(id, after) > 0).sort(compareIds);
      return entityViews(q, memoryId, forest, recordedAt, filter.limit === undefined ? page : page.slice(0, filter.limit));
    });
  }

  events(memoryId: string, cut: Cut, filter: EventFilter = {}): Promise<EventView[]> {
    return this.snapshot(async (q) => {
      const forest = await loadForest(q, memoryId, { through: cut.recordedAt });
      const params: unknown[] = [memoryId, pgInstant(cut.recordedAt)];
      const param = (value: unknown) => `$${params.push(value)}`;
      const validAt = cut.validAt === '*' ? null : param(pgInstant(cut.validAt));
      const where = [cutPredicate('event', 'ev', { memoryId: '$1', recordedAt: '$2', validAt })];
      if (filter.entity !== undefined) where.push(eventAboutSql(param(forest.classOf(filter.entity))));
      const { rows } = await q.query<EventRow>(
        `SELECT ${EVENT_COLUMNS} FROM rm_event_versions ev WHERE ${where.join(' AND ')}${pageSql(filter, 'ev.event_id', param)}`,
        params,
      );
      return rows.map((row) => eventViewOfRow(row, forest)).sort((a, b) => compareIds(a.eventId, b.eventId));
    });
  }

  async episodes(memoryId: string, cut: Cut, page: Page = {}): Promise<EpisodeView[]> {
    const params: unknown[] = [memoryId, pgInstant(cut.recordedAt)];
    const param = (value: unknown) => `$${params.push(value)}`;
    const at = { memoryId: '$1', recordedAt: '$2', validAt: cut.validAt === '*' ? null : param(pgInstant(cut.validAt)) };
    // One statement (one snapshot): an episode lists only its events visible at r (any validity), in its own order.
    // They are asked once per episode (OFFSET 0 keeps the planner from copying the array into the WHERE),
    // and the rule's requirement (some event visible) reads them.
    const { rows } = await this.pool.query<{
      episode_id: string;
      title: string;
      window_from: string;
      window_to: string | null;
      events: string[];
      recorded_from: string;
    }>(
      `SELECT ep.episode_id, ep.title, ${epochMs('ep.window_from')} AS window_from, ${epochMs('ep.window_to')} AS window_to,
              ${epochMs('ep.recorded_from')} AS recorded_from, listed.events
         FROM rm_episode_versions ep CROSS JOIN LATERAL (SELECT ${listedMembers('episode', 'ep', at)} AS events OFFSET 0) listed
        WHERE ${cutPredicate('episode', 'ep', at, 'listed.events')}${pageSql(page, 'ep.episode_id', param)}`,
      params,
    );
    return rows
      .map((row) => ({
        episodeId: row.episode_id,
        title: row.title,
        window: { from: instantOfEpochMs(row.window_from), to: instantOrNullOfEpochMs(row.window_to) },
        events: row.events,
        recordedFrom: instantOfEpochMs(row.recorded_from),
      }))
      .sort((a, b) => compareIds(a.episodeId, b.episodeId));
  }

  async topics(memoryId: string, cut: Cut, page: Page = {}): Promise<TopicView[]> {
    const params: unknown[] = [memoryId, pgInstant(cut.recordedAt)];
    const param = (value: unknown) => `$${params.push(value)}`;
    const at = { memoryId: '$1', recordedAt: '$2', validAt: cut.validAt === '*' ? null : param(pgInstant(cut.validAt)) };
    // As episodes: one statement, each topic's visible members asked once (OFFSET 0), the rule reading them.
    const { members, where } = topicCut('t', at, 'listed.members');
    const { rows } = await this.pool.query<{
      topic_id: string;
      title: string;
      summary: string;
      window_from: string;
      window_to: string | null;
      members: string[];
      recorded_from: string;
      erased: boolean;
    }>(
      `SELECT t.topic_id, t.title, t.summary, ${epochMs('t.window_from')} AS window_from, ${epochMs('t.window_to')} AS window_to,
              ${epochMs('t.recorded_from')} AS recorded_from, listed.members, t.erased
         FROM rm_topic_versions t CROSS JOIN LATERAL (SELECT ${members} AS members OFFSET 0) listed
        WHERE ${where}${pageSql(page, 't.topic_id', param)}`,
      params,
    );
    return rows
      .map((row) => ({
        topicId: row.topic_id,
        title: row.title,
        summary: row.summary,
        window: { from: instantOfEpochMs(row.window_from), to: instantOrNullOfEpochMs(row.window_to) },
        members: row.members,
        recordedFrom: instantOfEpochMs(row.recorded_from),
        ...(row.erased ? { erased: true as const } : {}),
      }))
      .sort((a, b) => compareIds(a.topicId, b.topicId));
  }

  async mentions(memoryId: string, recordedAt: Instant, filter: MentionFilter = {}): Promise<MentionView[]> {
    const byId = filter.ids === undefined ? '' : ' AND mention_id = ANY($3)';
    const { rows } = await this.pool.query<MentionRow>(
      `SELECT ${MENTION_COLUMNS} FROM rm_mentions WHERE ${cutPredicate('mention', '', { memoryId: '$1', recordedAt: '$2', validAt: null })}${byId}`,
      filter.ids === undefined ? [memoryId, pgInstant(recordedAt)] : [memoryId, pgInstant(recordedAt), filter.ids],
    );
    return rows.map(mentionViewOfRow).sort((a, b) => compareIds(a.mentionId, b.mentionId));
  }

  /** One document's rows (rm_mentions_doc), put in document order here as replay does: no database collation decides it. */
  async documentMentions(memoryId: string, docId: string, recordedAt: Instant): Promise<MentionView[]> {
    const { rows } = await this.pool.query<MentionRow>(
      `SELECT ${MENTION_COLUMNS} FROM rm_mentions
        WHERE ${cutPredicate('mention', '', { memoryId: '$1', recordedAt: '$2', validAt: null })} AND doc_id = $3`,
      [memoryId, pgInstant(recordedAt), docId],
    );
    return rows.map(mentionViewOfRow).sort(compareDocumentOrder);
  }

  async mention(memoryId: string, mentionId: string, recordedAt: Instant): Promise<MentionView | null> {
    const { rows } = await this.pool.query<MentionRow>(
      `SELECT ${MENTION_COLUMNS} FROM rm_mentions
        WHERE ${cutPredicate('mention', '', { memoryId: '$1', recordedAt: '$2', validAt: null })} AND mention_id = $3`,
      [memoryId, pgInstant(recordedAt), mentionId],
    );
    return rows[0] === undefined ? null : mentionViewOfRow(rows[0]);
  }

  /** Replay folds the events recorded before `to` (foldBefore): a close at or after `to` is not yet seen. */
  changes(memoryId: string, from: Instant, to: Instant): Promise<ChangeView[]> {
    return this.snapshot(async (q) => {
      const forest = await loadForest(q, memoryId, { before: to });
      const { rows } = await q.query<FactRow>(
        `SELECT ${FACT_COLUMNS} FROM rm_fact_versions
          WHERE memory_id = $1
            AND ((recorded_from >= $2::timestamptz AND recorded_from < $3::timestamptz)
              OR (recorded_to >= $2::timestamptz AND recorded_to < $3::timestamptz))`,
        [memoryId, pgInstant(from), pgInstant(to)],
      );
      const changes: ChangeView[] = [];
      for (const row of rows) {
        const closedAt = instantOrNullOfEpochMs(row.recorded_to);
        const view = factViewOfRow(row, forest, closedAt !== null && closedAt < to ? closedAt : null);
        if (contains(from, to, view.recordedFrom)) changes.push({ change: 'opened', at: view.recordedFrom, version: view });
        if (view.recordedTo !== null && contains(from, to, view.recordedTo)) changes.push({ change: 'closed', at: view.recordedTo, version: view });
      }
      return changes.sort(compareChanges);
    });
  }

  /**
   * The window's distinct record instants one at a time, each the least opening or closing after the last
   * (two index probes: rm_fact_versions_opened, rm_fact_versions_ends), then each one's count: the cost
   * grows with `max`, not with the window.
   */
  async changeCounts(memoryId: string, from: Instant, to: Instant, max: number): Promise<ChangeCount[]> {
    const next = (bound: string) =>
      `least((SELECT min(recorded_from) FROM rm_fact_versions WHERE memory_id = $1 AND recorded_from ${bound} AND recorded_from < $3::timestamptz),
             (SELECT min(recorded_to) FROM rm_fact_versions WHERE memory_id = $1 AND recorded_to ${bound} AND recorded_to < $3::timestamptz))`;
    const { rows } = await this.pool.query<{ at: string; changes: number }>(
      `WITH RECURSIVE instants(at, n) AS (
         SELECT ${next('>= $2::timestamptz')}, 1
         UNION ALL
         SELECT ${next('> i.at')}, i.n + 1 FROM instants i WHERE i.at IS NOT NULL AND i.n < $4
       )
       SELECT ${epochMs('i.at')} AS at,
              ((SELECT count(*) FROM rm_fact_versions WHERE memory_id = $1 AND recorded_from = i.at)
             + (SELECT count(*) FROM rm_fact_versions WHERE memory_id = $1 AND recorded_to = i.at))::int AS changes
         FROM instants i WHERE i.at IS NOT NULL ORDER BY i.at`,
      [memoryId, pgInstant(from), pgInstant(to), max],
    );
    return rows.map((row) => ({ at: instantOfEpochMs(row.at), changes: row.changes }));
  }

  private snapshot<T>(read: (q: Queryable) => Promise<T>): Promise<T> {
    return inTransaction(this.pool, read, 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
  }
}

/**
 * `entityAt` of each id, in the ids' order, leaving out those not visible at r: the view of its
 * class at r, read in one round trip for the entities and one for their labels.
 */
async function entityViews(q: Queryable, memoryId: string, forest: MergeForest, recordedAt: Instant, ids: readonly string[]): Promise<EntityView[]> {
  if (ids.length === 0) return [];
  const classes = ids.map((id) => forest.classOf(id));
  const members = [...new Set(classes.flat())];
  const r = pgInstant(recordedAt);
  const { rows: entityRows } = await q.query<{ entity_id: string; name: string | null; recorded_from: string; erased: boolean }>(
    `SELECT entity_id, name, ${epochMs('recorded_from')} AS recorded_from, erased FROM rm_entities
      WHERE ${cutPredicate('entity', '', { memoryId: '$1', recordedAt: '$3', validAt: null })} AND entity_id = ANY($2::text[])`,
    [memoryId, [...new Set([...ids, ...members])], r],
  );
  const entities = new Map(entityRows.map((row) => [row.entity_id, row]));
  const { rows: labelRows } = await q.query<{ entity_id: string; kind: LabelKind; value: string }>(
    `SELECT l.entity_id, l.kind, l.value FROM rm_entity_labels l
       JOIN rm_entities e ON e.memory_id = l.memory_id AND e.entity_id = l.entity_id
      WHERE l.memory_id = $1 AND l.entity_id = ANY($2::text[]) AND ${recordPredicate('entity', 'l', '$3')} AND l.position >= e.position
      ORDER BY l.position, l.idx`,
    [memoryId, members, r],
  );
  const labels = new Map<string, { kind: LabelKind; value: string }[]>();
  for (const label of labelRows) {
    const list = labels.get(label.entity_id);
    if (list) list.push(label);
    else labels.set(label.entity_id, [label]);
  }
  const views: EntityView[] = [];
  for (const [i, id] of ids.entries()) {
    const root = forest.canonical(id);
    const rootEntity = entities.get(root);
    if (!entities.has(id) || !rootEntity) continue;
    // Same accumulation as entityAt: members in merge order, each one's name, then its aliases/types in log order;
    // an erased name is in no list (an erased entity's labels are gone from the table).
    const rootName = nameAt(rootEntity, labels.get(root));
    const names = new Set<string>();
    if (rootName.name !== null) names.add(rootName.name);
    const aliases = new Set<string>();
    const types = new Set<string>();
    const inClass = classes[i]!.filter((member) => entities.has(member));
    for (const member of inClass) {
      const { name } = nameAt(entities.get(member)!, labels.get(member));
      if (name !== null) {
        names.add(name);
        if (member !== root) aliases.add(name);
      }
      for (const label of labels.get(member) ?? []) {
        if (label.kind === 'alias') aliases.add(label.value);
        else if (label.kind === 'type') types.add(label.value);
      }
    }
    if (rootName.name !== null) aliases.delete(rootName.name);
    const classIds = new Set(inClass);
    const view: EntityView = {
      entityId: root,
      name: rootName.name,
      names: [...names],
      aliases: [...aliases],
      types: [...types],
      merges: forest.merges.filter((m) => classIds.has(m.dstRoot)).map((m) => ({ entityId: m.srcRoot, into: m.dstRoot, recordedAt: m.recordedAt })),
      recordedFrom: instantOfEpochMs(rootEntity.recorded_from),
    };
    if (rootName.erased) view.erased = true;
    views.push(view);
  }
  return views;
}

/**
 * An entity's name at r: the one a registration gave it again after an erasure (its labels at r, in
 * log order: at most one survives, a later erasure deletes it), else its first one, null once erased.
 */
function nameAt(
  entity: { name: string | null; erased: boolean },
  labels: readonly { kind: LabelKind; value: string }[] = [],
): {
  name: string | null;
  erased: boolean;
} {
  for (let i = labels.length - 1; i >= 0; i--) if (labels[i]!.kind === 'name') return { name: labels[i]!.value, erased: false };
  return { name: entity.name, erased: entity.erased };
}

/**
 * The fact versions in the cut that match the filter; a filter names an entity class at r: any
 * member id matches (SPEC MERGE_ENTITY).
 */
function factsStatement(memoryId: string, cut: Cut, filter: FactFilter, classOf: (id: string) => readonly string[]) {
  const params: unknown[] = [memoryId, pgInstant(cut.recordedAt)];
  const param = (value: unknown) => `$${params.push(value)}`;
  const where = [cutPredicate('fact', '', { memoryId: '$1', recordedAt: '$2', validAt: cut.validAt === '*' ? null : param(pgInstant(cut.validAt)) })];
  // A class of one is compared by equality: a plan made for any id then costs what one made for this id does
  // (for `= ANY($n)` PostgreSQL guesses an array of several ids), so the named statement keeps it.
  const anyOf = (ids: readonly string[]) => (ids.length === 1 ? `= ${param(ids[0])}` : `= ANY(${param(ids)}::text[])`);
  if (filter.rel !== undefined) where.push(`rel = ${param(filter.rel)}`);
  const src = srcIds(filter);
  if (src !== undefined) where.push(`src ${anyOf([...new Set(src.flatMap(classOf))])}`);
  if (filter.dst !== undefined) where.push(`(dst_entity ${anyOf(classOf(filter.dst))} OR dst_text = ${param(filter.dst)})`);
  return { sql: `SELECT ${FACT_COLUMNS} FROM rm_fact_versions WHERE ${where.join(' AND ')}${pageSql(filter, 'fact_id', param)}`, params };
}

/**
 * A page of an id-sorted listing in SQL: the id column is `COLLATE "C"`, code point order, the order of
 * `compareIds`, so the database cuts the same page the domain's `pageOf` does.
 */
function pageSql(page: Page, idColumn: string, param: (value: unknown) => string): string {
  const after = page.after === undefined ? '' : ` AND ${idColumn} > ${param(page.after)}`;
  return page.limit === undefined ? after : `${after} ORDER BY ${idColumn} LIMIT ${param(page.limit)}`;
}

/**
 * EventFilter.entity over a row `ev`, for the class `ids` (a parameter) of the entity at r: a participant
 * is one of them, or a fact of its evidence is from or to one (a fact's ends are the same in all its versions).
 */
function eventAboutSql(ids: string): string {
  return `(EXISTS (SELECT 1 FROM jsonb_array_elements(ev.participants) p WHERE p->>'entityId' = ANY(${ids}::text[]))
    OR EXISTS (SELECT 1 FROM rm_fact_versions fv
                WHERE fv.memory_id = ev.memory_id AND fv.fact_id = ANY(ev.includes_facts) AND fv.version_no = 1
                  AND (fv.src = ANY(${ids}::text[]) OR fv.dst_entity = ANY(${ids}::text[]))))`;
}

/** A version as `history` answers it at r (all of it without r): a close after r is not known yet. */
function historyView(row: FactRow, forest: MergeForest, recordedAt: Instant | undefined): FactView {
  const closedAt = instantOrNullOfEpochMs(row.recorded_to);
  return factViewOfRow(row, forest, closedAt !== null && (recordedAt === undefined || closedAt <= recordedAt) ? closedAt : null);
}

/** In the cut a version is open as far as r knows: a later close is invisible (cut isolation). */
function factViews(rows: readonly FactRow[], forest: MergeForest): FactView[] {
  return rows.map((row) => factViewOfRow(row, forest, null)).sort((a, b) => compareIds(a.factId, b.factId));
}

/** A memory's merges as one JSON array (null when none), in log order, with the columns `loadForest` reads. */
const MERGES_JSON = `SELECT json_agg(json_build_array(src_id, dst_id, src_root, dst_root, ${epochMs('recorded_at')}) ORDER BY seq) AS merges
  FROM rm_entity_merges`;
type MergeJson = [string, string, string, string, string | number];

function mergeRowOfJson([srcId, dstId, srcRoot, dstRoot, recordedAt]: MergeJson): MergeRow {
  return { srcId, dstId, srcRoot, dstRoot, recordedAt: instantOfEpochMs(recordedAt) };
}

async function loadForest(q: Queryable, memoryId: string, horizon: MergeHorizon): Promise<MergeForest> {
  const params: unknown[] = [memoryId];
  const bound =
    horizon === 'all'
      ? ''
      : 'through' in horizon
        ? `AND ${recordPredicate('merge', '', `$${params.push(pgInstant(horizon.through))}`)}`
        : `AND recorded_at < $${params.push(pgInstant(horizon.before))}::timestamptz`;
  const { rows } = await q.query<{ src_id: string; dst_id: string; src_root: string; dst_root: string; recorded_at: string }>(
    `SELECT src_id, dst_id, src_root, dst_root, ${epochMs('recorded_at')} AS recorded_at
       FROM rm_entity_merges WHERE memory_id = $1 ${bound} ORDER BY seq`,
    params,
  );
  const merges: MergeRow[] = rows.map((row) => ({
    srcId: row.src_id,
    dstId: row.dst_id,
    srcRoot: row.src_root,
    dstRoot: row.dst_root,
    recordedAt: instantOfEpochMs(row.recorded_at),
  }));
  return new MergeForest(merges);
}
