import type { EpisodeVersionRow, EventVersionRow, FactVersionRow, Literal, Participant, SearchDelta, SearchFeed, Watermark } from '@memotrace/domain';
import type { Pool } from 'pg';
import { epochMs, instantOfEpochMs, instantOrNullOfEpochMs, pgInstant } from './instants';
import { MENTION_COLUMNS, type MentionRow, mentionViewOfRow, targetOfRow } from './view-rows';

type Range = { from: string; to: string | null; recorded_from: string; recorded_to: string | null };
type FactRow = Range & {
  fact_id: string;
  version_no: number;
  src: string;
  rel: string;
  dst_entity: string | null;
  dst_literal: Literal | null;
  evidence: string[];
};
type EventRow = Range & { event_id: string; version_no: number; summary: string; participants: Participant[]; includes_facts: string[] };
type EpisodeRow = Range & { episode_id: string; version_no: number; title: string; events: string[] };
type EntityRow = { entity_id: string; name: string; recorded_from: string };
type MergeRow = { seq: string; src_id: string; dst_id: string; src_root: string; dst_root: string; recorded_at: string };
type Rows = { facts: FactRow[]; events: EventRow[]; episodes: EpisodeRow[]; mentions: MentionRow[]; entities: EntityRow[]; merges: MergeRow[] };

const times = (from: string, to: string) =>
  `${epochMs(from)} AS "from", ${epochMs(to)} AS "to", ${epochMs('recorded_from')} AS recorded_from, ${epochMs('recorded_to')} AS recorded_to`;

/** What search reads of each table, and its key (the order of a full read's pages). */
const TABLES = {
  facts: {
    table: 'rm_fact_versions',
    key: ['fact_id', 'version_no'],
    columns: `fact_id, version_no, src, rel, dst_entity, dst_literal, evidence, ${times('valid_from', 'valid_to')}`,
  },
  events: {
    table: 'rm_event_versions',
    key: ['event_id', 'version_no'],
    columns: `event_id, version_no, summary, participants, includes_facts, ${times('span_from', 'span_to')}`,
  },
  episodes: {
    table: 'rm_episode_versions',
    key: ['episode_id', 'version_no'],
    columns: `episode_id, version_no, title, events, ${times('window_from', 'window_to')}`,
  },
  mentions: { table: 'rm_mentions', key: ['mention_id'], columns: MENTION_COLUMNS },
} as const;
const ENTITY_COLUMNS = `entity_id, name, ${epochMs('recorded_from')} AS recorded_from`;
const MERGE_COLUMNS = `seq, src_id, dst_id, src_root, dst_root, ${epochMs('recorded_at')} AS recorded_at`;

/**
 * The search corpus's feed from the read models. A delta (rows with a record time
 * after the corpus's watermark, or at it when that instant's count changed) is one
 * statement; a full read is one REPEATABLE READ snapshot read in pages.
 */
export class PostgresSearchFeed implements SearchFeed {
  constructor(
    private readonly pool: Pool,
    /** Rows per page of a full read: the event loop runs between pages. */
    private readonly pageSize = 10_000,
  ) {}

  /** The read models' checkpoints summed: every batch a projector commits advances one. */
  async changeMark(): Promise<number> {
    const { rows } = await this.pool.query<{ mark: string | null }>('SELECT sum(position) AS mark FROM rm_checkpoints');
    return Number(rows[0]?.mark ?? 0);
  }

  async *allItems(memoryId: string): AsyncIterable<SearchDelta> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      // Names and merges first: facts are rendered with the names.
      const entities = await client.query<EntityRow>(`SELECT ${ENTITY_COLUMNS} FROM rm_entities WHERE memory_id = $1`, [memoryId]);
      const merges = await client.query<MergeRow>(`SELECT ${MERGE_COLUMNS} FROM rm_entity_merges WHERE memory_id = $1 ORDER BY seq`, [memoryId]);
      yield deltaOf({ ...NONE, entities: entities.rows, merges: merges.rows });
      for (const [name, { table, key, columns }] of Object.entries(TABLES) as [keyof typeof TABLES, (typeof TABLES)[keyof typeof TABLES]][]) {
        let after: unknown[] | null = null;
        for (;;) {
          const params: unknown[] = [memoryId, ...(after ?? [])];
          const from: string =
            after === null ? 'memory_id = $1' : `(memory_id, ${key.join(', ')}) > ($1, ${key.map((_, i) => `$${i + 2}`).join(', ')})`;
          const { rows }: { rows: Record<string, unknown>[] } = await client.query<Record<string, unknown>>(
            `SELECT ${columns} FROM ${table} WHERE ${from} AND memory_id = $1 ORDER BY memory_id, ${key.join(', ')} LIMIT ${this.pageSize}`,
            params,
          );
          if (rows.length > 0) yield deltaOf({ ...NONE, [name]: rows });
          if (rows.length < this.pageSize) break;
          const last: Record<string, unknown> = rows[rows.length - 1]!;
          after = key.map((k): unknown => last[k]);
        }
      }
      await client.query('COMMIT');
    } finally {
      client.release();
    }
  }

  async itemsSince(memoryId: string, since: Watermark): Promise<SearchDelta> {
    // Fact versions are read through the btrees (memory_id, recorded_from | recorded_to) by row
    // comparisons, which GiST cannot serve: with a new memory's statistics not yet gathered the
    // planner otherwise takes a GiST index on memory_id and walks the whole memory.
    const factsAt = (column: string, op: '=' | '>=') =>
      `(memory_id, ${column}) >= ($1, $2::timestamptz) AND ` +
      `(memory_id, ${column}) ${op === '=' ? '<= ($1, $2::timestamptz)' : "< ($1, 'infinity'::timestamptz)"}` +
      `${column === 'recorded_to' ? ' AND recorded_to IS NOT NULL' : ''}`;
    const at = (table: string, column: string) =>
      table === TABLES.facts.table ? factsAt(column, '=') : `memory_id = $1 AND ${column} = $2::timestamptz`;
    // Rows at `since.at` again only if that instant's record times changed (a later batch at the same instant).
    const counted: [string, string][] = [
      ['rm_fact_versions', 'recorded_from'],
      ['rm_fact_versions', 'recorded_to'],
      ['rm_event_versions', 'recorded_from'],
      ['rm_event_versions', 'recorded_to'],
      ['rm_episode_versions', 'recorded_from'],
      ['rm_episode_versions', 'recorded_to'],
      ['rm_mentions', 'recorded_from'],
      ['rm_entities', 'recorded_from'],
      ['rm_entity_merges', 'recorded_at'],
    ];
    const changed = `(${counted.map(([table, column]) => `(SELECT count(*) FROM ${table} WHERE ${at(table, column)})`).join(' + ')}) <> $3`;
    const newer = (column: string) => `(${column} > $2::timestamptz OR (SELECT changed FROM since))`;
    const recorded = (column: string) => `memory_id = $1 AND ${column} >= $2::timestamptz AND ${newer(column)}`;
    // Opened or closed since: two range scans, one per record-time column.
    const versions = ({ table, columns }: { table: string; columns: string }) => {
      const since = (column: string) => (table === TABLES.facts.table ? `${factsAt(column, '>=')} AND ${newer(column)}` : recorded(column));
      return `SELECT ${columns} FROM ${table} WHERE ${since('recorded_from')} UNION SELECT ${columns} FROM ${table} WHERE ${since('recorded_to')}`;
    };
    const rows = (select: string) => `(SELECT coalesce(json_agg(r), '[]') FROM (${select}) r)`;
    const {
      rows: [found],
    } = await this.pool.query<Rows>({
      // One statement: one snapshot, one round trip; named: planned once per connection.
      name: 'memotrace-search-feed-since',
      text: `WITH since AS MATERIALIZED (SELECT ${changed} AS changed)
       SELECT
         ${rows(versions(TABLES.facts))} AS facts,
         ${rows(versions(TABLES.events))} AS events,
         ${rows(versions(TABLES.episodes))} AS episodes,
         ${rows(`SELECT ${MENTION_COLUMNS} FROM rm_mentions WHERE ${recorded('recorded_from')}`)} AS mentions,
         ${rows(`SELECT ${ENTITY_COLUMNS} FROM rm_entities WHERE ${recorded('recorded_from')}`)} AS entities,
         ${rows(`SELECT ${MERGE_COLUMNS} FROM rm_entity_merges WHERE ${recorded('recorded_at')} ORDER BY seq`)} AS merges`,
      values: [memoryId, pgInstant(since.at), since.seen],
    });
    return deltaOf(found!);
  }
}

const NONE: Rows = { facts: [], events: [], episodes: [], mentions: [], entities: [], merges: [] };

function deltaOf({ facts, events, episodes, mentions, entities, merges }: Rows): SearchDelta {
  const recordInterval = (row: Range) => ({ recordedFrom: instantOfEpochMs(row.recorded_from), recordedTo: instantOrNullOfEpochMs(row.recorded_to) });
  const interval = (row: Range) => ({ from: instantOfEpochMs(row.from), to: instantOrNullOfEpochMs(row.to) });
  return {
    facts: facts.map((row): FactVersionRow => ({
      factId: row.fact_id,
      versionNo: row.version_no,
      src: row.src,
      rel: row.rel,
      dst: targetOfRow(row.dst_entity, row.dst_literal),
      validFrom: instantOfEpochMs(row.from),
      validTo: instantOrNullOfEpochMs(row.to),
      ...recordInterval(row),
      evidence: row.evidence,
    })),
    events: events.map((row): EventVersionRow => ({
      eventId: row.event_id,
      versionNo: row.version_no,
      summary: row.summary,
      participants: row.participants,
      includesFacts: row.includes_facts,
      timeSpan: interval(row),
      ...recordInterval(row),
    })),
    episodes: episodes.map((row): EpisodeVersionRow => ({
      episodeId: row.episode_id,
      versionNo: row.version_no,
      title: row.title,
      window: interval(row),
      events: row.events,
      ...recordInterval(row),
    })),
    mentions: mentions.map(mentionViewOfRow),
    entities: entities.map((row) => ({ entityId: row.entity_id, name: row.name, recordedFrom: instantOfEpochMs(row.recorded_from) })),
    merges: merges.map((row) => ({
      seq: Number(row.seq),
      srcId: row.src_id,
      dstId: row.dst_id,
      srcRoot: row.src_root,
      dstRoot: row.dst_root,
      recordedAt: instantOfEpochMs(row.recorded_at),
    })),
  };
}
