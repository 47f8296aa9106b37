import type { EpisodeVersionRow, EventVersionRow, FactVersionRow, Literal, Participant, SearchDelta, SearchFeed, Watermark } from '@memotrace/domain';
import type { Pool } from 'pg';
import { epochMs, instantOfEpochMs, instantOrNullOfEpochMs, pgInstant } from './instants';
import { targetOfRow } from './read-model-writes';
import { MENTION_COLUMNS, type MentionRow, mentionViewOfRow } from './view-rows';

type Range = { from: string; to: string | null; recorded_from: string; recorded_to: string | null };

/**
 * The search corpus's feed from the read models: rows of one memory with a record
 * time (opened, closed, recorded, merged) after the corpus's watermark, or at it when
 * that instant's count changed; in one statement (one snapshot).
 */
export class PostgresSearchFeed implements SearchFeed {
  constructor(private readonly pool: Pool) {}

  /** The read models' checkpoints summed: every batch a projector commits advances one. */
  async changeMark(): Promise<number> {
    const { rows } = await this.pool.query<{ mark: string | null }>('SELECT sum(position) AS mark FROM rm_checkpoints');
    return Number(rows[0]?.mark ?? 0);
  }

  async itemsSince(memoryId: string, since: Watermark | null): Promise<SearchDelta> {
    const params = since === null ? [memoryId] : [memoryId, pgInstant(since.at), since.seen];
    // Fact versions are read through the btrees (memory_id, recorded_from | recorded_to) by row
    // comparisons, which GiST cannot serve: with a new memory's statistics not yet gathered the
    // planner otherwise takes a GiST index on memory_id and walks the whole memory (30+ ms).
    const factsAt = (column: string, op: '=' | '>=') =>
      `(memory_id, ${column}) >= ($1, $2::timestamptz) AND (memory_id, ${column}) ${op === '=' ? '<=' : '<'} ($1, ${op === '=' ? '$2::timestamptz' : "'infinity'::timestamptz"})${column === 'recorded_to' ? ' AND recorded_to IS NOT NULL' : ''}`;
    const countAt = (table: string, column: string) =>
      `(SELECT count(*) FROM ${table} WHERE ${table === 'rm_fact_versions' ? factsAt(column, '=') : `memory_id = $1 AND ${column} = $2::timestamptz`})`;
    // Rows at `since.at` again only if that instant's record times changed (a later batch at the same instant).
    const changedAtSince = `(${[
      countAt('rm_fact_versions', 'recorded_from'),
      countAt('rm_fact_versions', 'recorded_to'),
      countAt('rm_event_versions', 'recorded_from'),
      countAt('rm_event_versions', 'recorded_to'),
      countAt('rm_episode_versions', 'recorded_from'),
      countAt('rm_episode_versions', 'recorded_to'),
      countAt('rm_mentions', 'recorded_from'),
      countAt('rm_entities', 'recorded_from'),
      countAt('rm_entity_merges', 'recorded_at'),
    ].join(' + ')}) <> $3`;
    const newer = (column: string) => `(${column} > $2::timestamptz OR (SELECT changed FROM since))`;
    const recorded = (column: string) => (since === null ? '' : `AND ${column} >= $2::timestamptz AND ${newer(column)}`);
    // Opened or closed since: two range scans, one per record-time column.
    const versions = (table: string, columns: string) => {
      if (since === null) return `SELECT ${columns} FROM ${table} WHERE memory_id = $1`;
      const from = (column: string) => (table === 'rm_fact_versions' ? `${factsAt(column, '>=')} AND ${newer(column)}` : `memory_id = $1 ${recorded(column)}`);
      return `SELECT ${columns} FROM ${table} WHERE ${from('recorded_from')} UNION SELECT ${columns} FROM ${table} WHERE ${from('recorded_to')}`;
    };
    const times = (from: string, to: string) =>
      `${epochMs(from)} AS "from", ${epochMs(to)} AS "to", ${epochMs('recorded_from')} AS recorded_from, ${epochMs('recorded_to')} AS recorded_to`;
    const rows = (select: string) => `(SELECT coalesce(json_agg(r), '[]') FROM (${select}) r)`;
    // One statement: one snapshot and one round trip for all six tables.
    const { rows: [tables] } = await this.pool.query<{
      facts: (Range & { fact_id: string; version_no: number; src: string; rel: string; dst_entity: string | null; dst_literal: Literal | null; evidence: string[] })[];
      events: (Range & { event_id: string; version_no: number; summary: string; participants: Participant[]; includes_facts: string[] })[];
      episodes: (Range & { episode_id: string; version_no: number; title: string; events: string[] })[];
      mentions: MentionRow[];
      entities: { entity_id: string; name: string; recorded_from: string }[];
      merges: { seq: string; src_id: string; dst_id: string; src_root: string; dst_root: string; recorded_at: string }[];
    }>({
      // Named: planned once per connection (the statement is long; planning it cost more than running it).
      name: since === null ? 'memotrace-search-feed-all' : 'memotrace-search-feed-since',
      text: `${since === null ? '' : `WITH since AS MATERIALIZED (SELECT ${changedAtSince} AS changed)`}
       SELECT
         ${rows(versions('rm_fact_versions', `fact_id, version_no, src, rel, dst_entity, dst_literal, evidence, ${times('valid_from', 'valid_to')}`))} AS facts,
         ${rows(versions('rm_event_versions', `event_id, version_no, summary, participants, includes_facts, ${times('span_from', 'span_to')}`))} AS events,
         ${rows(versions('rm_episode_versions', `episode_id, version_no, title, events, ${times('window_from', 'window_to')}`))} AS episodes,
         ${rows(`SELECT ${MENTION_COLUMNS} FROM rm_mentions WHERE memory_id = $1 ${recorded('recorded_from')}`)} AS mentions,
         ${rows(`SELECT entity_id, name, ${epochMs('recorded_from')} AS recorded_from FROM rm_entities WHERE memory_id = $1 ${recorded('recorded_from')}`)} AS entities,
         ${rows(`SELECT seq, src_id, dst_id, src_root, dst_root, ${epochMs('recorded_at')} AS recorded_at FROM rm_entity_merges WHERE memory_id = $1 ${recorded('recorded_at')} ORDER BY seq`)} AS merges`,
      values: params,
    });
    const { facts, events, episodes, mentions, entities, merges } = tables!;
    const recordInterval = (row: Range) => ({ recordedFrom: instantOfEpochMs(row.recorded_from), recordedTo: instantOrNullOfEpochMs(row.recorded_to) });
    const interval = (row: Range) => ({ from: instantOfEpochMs(row.from), to: instantOrNullOfEpochMs(row.to) });
    return {
      facts: facts.map(
        (row): FactVersionRow => ({
          factId: row.fact_id,
          versionNo: row.version_no,
          src: row.src,
          rel: row.rel,
          dst: targetOfRow(row.dst_entity, row.dst_literal),
          validFrom: instantOfEpochMs(row.from),
          validTo: instantOrNullOfEpochMs(row.to),
          ...recordInterval(row),
          evidence: row.evidence,
        }),
      ),
      events: events.map(
        (row): EventVersionRow => ({
          eventId: row.event_id,
          versionNo: row.version_no,
          summary: row.summary,
          participants: row.participants,
          includesFacts: row.includes_facts,
          timeSpan: interval(row),
          ...recordInterval(row),
        }),
      ),
      episodes: episodes.map(
        (row): EpisodeVersionRow => ({ episodeId: row.episode_id, versionNo: row.version_no, title: row.title, window: interval(row), events: row.events, ...recordInterval(row) }),
      ),
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
}
