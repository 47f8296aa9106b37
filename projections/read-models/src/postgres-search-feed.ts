import type { EpisodeVersionRow, EventVersionRow, FactVersionRow, Instant, Literal, Participant, SearchDelta, SearchFeed } from '@memotrace/domain';
import type { Pool } from 'pg';
import { epochMs, instantOfEpochMs, instantOrNullOfEpochMs, pgInstant } from './instants';
import { targetOfRow } from './read-model-writes';
import { MENTION_COLUMNS, type MentionRow, mentionViewOfRow } from './view-rows';

type Range = { from: string; to: string | null; recorded_from: string; recorded_to: string | null };

/**
 * The search corpus's feed from the read models: rows of one memory whose record
 * time (opened, closed, recorded) is at or after `since`, in one statement (one
 * snapshot). `since` is inclusive: a later batch may share the last record time seen.
 */
export class PostgresSearchFeed implements SearchFeed {
  constructor(private readonly pool: Pool) {}

  async itemsSince(memoryId: string, since: Instant | null): Promise<SearchDelta> {
    const params = since === null ? [memoryId] : [memoryId, pgInstant(since)];
    const versioned = since === null ? '' : 'AND (recorded_from >= $2::timestamptz OR recorded_to >= $2::timestamptz)';
    const recorded = (column: string) => (since === null ? '' : `AND ${column} >= $2::timestamptz`);
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
    }>(
      `SELECT
         ${rows(`SELECT fact_id, version_no, src, rel, dst_entity, dst_literal, evidence, ${times('valid_from', 'valid_to')} FROM rm_fact_versions WHERE memory_id = $1 ${versioned}`)} AS facts,
         ${rows(`SELECT event_id, version_no, summary, participants, includes_facts, ${times('span_from', 'span_to')} FROM rm_event_versions WHERE memory_id = $1 ${versioned}`)} AS events,
         ${rows(`SELECT episode_id, version_no, title, events, ${times('window_from', 'window_to')} FROM rm_episode_versions WHERE memory_id = $1 ${versioned}`)} AS episodes,
         ${rows(`SELECT ${MENTION_COLUMNS} FROM rm_mentions WHERE memory_id = $1 ${recorded('recorded_from')}`)} AS mentions,
         ${rows(`SELECT entity_id, name, ${epochMs('recorded_from')} AS recorded_from FROM rm_entities WHERE memory_id = $1 ${recorded('recorded_from')}`)} AS entities,
         ${rows(`SELECT seq, src_id, dst_id, src_root, dst_root, ${epochMs('recorded_at')} AS recorded_at FROM rm_entity_merges WHERE memory_id = $1 ${recorded('recorded_at')} ORDER BY seq`)} AS merges`,
      params,
    );
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
