import type {
  EntityNameRow,
  EpisodeVersionRow,
  ErasedItems,
  ErasureSubject,
  ErasureSubjectKind,
  EventVersionRow,
  FactVersionRow,
  Instant,
  Literal,
  MentionItemRow,
  MergeRecord,
  Participant,
  SearchDelta,
  SearchFeed,
  Watermark,
} from '@memotrace/domain';
import { checkpointsOfSql } from '@memotrace/projection';
import type { Pool, PoolClient } from 'pg';
import { epochMs, instantOfEpochMs, pgInstant } from './instants';
import { targetOfRow } from './view-rows';
import { READ_MODELS_PROJECTION } from './read-models-projection';

/**
 * Rows come as one JSON value of columns (`[[a1, a2, ...], [b1, b2, ...], ...]`, in row order):
 * one string for the driver to parse instead of a field per row and column, and epoch ms as
 * JSON numbers.
 */
type Columns = unknown[][];

/** A table as search reads it: its columns (SQL expressions), how they make rows, and its key (the order of a full read's pages). */
interface Table<Row> {
  table: string;
  key: readonly string[];
  columns: readonly string[];
  rows: (columns: Columns) => Row[];
}

const times = (from: string, to: string) => [epochMs(from), epochMs(to), epochMs('recorded_from'), epochMs('recorded_to')];

const TABLES = {
  facts: {
    table: 'rm_fact_versions',
    key: ['fact_id', 'version_no'],
    columns: ['fact_id', 'version_no', 'src', 'rel', 'dst_entity', 'dst_literal', 'evidence', ...times('valid_from', 'valid_to'), 'erased'],
    rows: (columns) => {
      const [ids, versionNos, srcs, rels, dstEntities, dstLiterals, evidence, validFrom, validTo, recordedFrom, recordedTo, erased] = columns as [
        string[],
        number[],
        string[],
        string[],
        (string | null)[],
        (Literal | null)[],
        string[][],
        number[],
        (number | null)[],
        number[],
        (number | null)[],
        boolean[],
      ];
      return ids.map((factId, i) => ({
        ...(erased[i] ? { erased: true as const } : {}),
        factId,
        versionNo: versionNos[i]!,
        src: srcs[i]!,
        rel: rels[i]!,
        dst: targetOfRow(dstEntities[i] ?? null, dstLiterals[i] ?? null),
        validFrom: validFrom[i]!,
        validTo: validTo[i] ?? null,
        recordedFrom: recordedFrom[i]!,
        recordedTo: recordedTo[i] ?? null,
        evidence: evidence[i]!,
      }));
    },
  } satisfies Table<FactVersionRow>,
  events: {
    table: 'rm_event_versions',
    key: ['event_id', 'version_no'],
    columns: ['event_id', 'version_no', 'summary', 'participants', 'includes_facts', ...times('span_from', 'span_to')],
    rows: (columns) => {
      const [ids, versionNos, summaries, participants, includesFacts, from, to, recordedFrom, recordedTo] = columns as [
        string[],
        number[],
        (string | null)[],
        Participant[][],
        string[][],
        number[],
        (number | null)[],
        number[],
        (number | null)[],
      ];
      return ids.map((eventId, i) => ({
        eventId,
        versionNo: versionNos[i]!,
        summary: summaries[i] ?? null,
        participants: participants[i]!,
        includesFacts: includesFacts[i]!,
        timeSpan: { from: from[i]!, to: to[i] ?? null },
        recordedFrom: recordedFrom[i]!,
        recordedTo: recordedTo[i] ?? null,
      }));
    },
  } satisfies Table<EventVersionRow>,
  episodes: {
    table: 'rm_episode_versions',
    key: ['episode_id', 'version_no'],
    columns: ['episode_id', 'version_no', 'title', 'events', ...times('window_from', 'window_to')],
    rows: (columns) => {
      const [ids, versionNos, titles, events, from, to, recordedFrom, recordedTo] = columns as [
        string[],
        number[],
        string[],
        string[][],
        number[],
        (number | null)[],
        number[],
        (number | null)[],
      ];
      return ids.map((episodeId, i) => ({
        episodeId,
        versionNo: versionNos[i]!,
        title: titles[i]!,
        window: { from: from[i]!, to: to[i] ?? null },
        events: events[i]!,
        recordedFrom: recordedFrom[i]!,
        recordedTo: recordedTo[i] ?? null,
      }));
    },
  } satisfies Table<EpisodeVersionRow>,
  mentions: {
    table: 'rm_mentions',
    key: ['mention_id'],
    columns: ['mention_id', 'doc_id', 'text', 'speaker', epochMs('occurred_at'), epochMs('recorded_from')],
    rows: (columns) => {
      const [ids, docIds, texts, speakers, occurredAt, recordedFrom] = columns as [
        string[],
        string[],
        (string | null)[],
        (string | null)[],
        (number | null)[],
        number[],
      ];
      return ids.map((mentionId, i) => ({
        mentionId,
        docId: docIds[i]!,
        text: texts[i] ?? null,
        speaker: speakers[i] ?? null,
        occurredAt: occurredAt[i] ?? null,
        recordedFrom: recordedFrom[i]!,
      }));
    },
  } satisfies Table<MentionItemRow>,
};

/**
 * An entity's name now: its first one, or once erased (null) the one a registration gave it again
 * after the erasure (a `name` label), if any.
 */
const ENTITY_NAME = `CASE WHEN rm_entities.erased THEN ${namedAgain('value')} ELSE rm_entities.name END`;
/** When the entity got the name ENTITY_NAME reads: the registration's that named it again, else its recording. */
const ENTITY_NAMED_FROM = `CASE WHEN rm_entities.erased THEN coalesce(${namedAgain('recorded_from')}, rm_entities.recorded_from)
    ELSE rm_entities.recorded_from END`;

/** A column of the latest `name` label of the entity (the name a registration gave it after its erasure). */
function namedAgain(column: 'value' | 'recorded_from'): string {
  return `(SELECT l.${column} FROM rm_entity_labels l
    WHERE l.memory_id = rm_entities.memory_id AND l.entity_id = rm_entities.entity_id AND l.kind = 'name'
    ORDER BY l.position DESC LIMIT 1)`;
}

const ENTITIES = {
  columns: ['entity_id', ENTITY_NAME, epochMs('recorded_from'), epochMs(ENTITY_NAMED_FROM)],
  rows: (columns) => {
    const [ids, names, recordedFrom, namedFrom] = columns as [string[], (string | null)[], number[], number[]];
    return ids.map((entityId, i) => ({
      entityId,
      name: names[i] ?? null,
      recordedFrom: instantOfEpochMs(recordedFrom[i]!),
      namedFrom: instantOfEpochMs(namedFrom[i]!),
    }));
  },
} satisfies Pick<Table<EntityNameRow>, 'columns' | 'rows'>;

const MERGES = {
  columns: ['seq', 'src_id', 'dst_id', 'src_root', 'dst_root', epochMs('recorded_at')],
  rows: (columns) => {
    const [seqs, srcIds, dstIds, srcRoots, dstRoots, recordedAt] = columns as [number[], string[], string[], string[], string[], number[]];
    return seqs.map((seq, i) => ({
      seq,
      srcId: srcIds[i]!,
      dstId: dstIds[i]!,
      srcRoot: srcRoots[i]!,
      dstRoot: dstRoots[i]!,
      recordedAt: instantOfEpochMs(recordedAt[i]!),
    }));
  },
} satisfies Pick<Table<MergeRecord & { seq: number }>, 'columns' | 'rows'>;

/** `SELECT` of the columns, named c0, c1, ... for `columnsOf`, `FROM` the rest. */
const select = (columns: readonly string[], rest: string) => `SELECT ${columns.map((column, i) => `${column} AS c${i}`).join(', ')} FROM ${rest}`;

/** One JSON value of the columns of the rows a `select` of them returns, in its order. */
const columnsOf = (columns: readonly string[], rows: string) =>
  `(SELECT json_build_array(${columns.map((_, i) => `coalesce(json_agg(c${i}), '[]')`).join(', ')}) FROM (${rows}) r)`;

/** One erasure the read models applied: the items whose content it removed (ids only). */
export interface FeedErasure extends ErasedItems {
  /** Log position of the erasure record: `erasureMark` and `erasuresSince` count in these. */
  position: number;
  recordedAt: Instant;
  subject: ErasureSubject;
}

/**
 * The search corpus's feed from the read models. A delta (rows with a record time
 * after the corpus's watermark, or at it when that instant's count changed) is one
 * statement; a full read is one REPEATABLE READ snapshot read in pages.
 *
 * Erased content (SPEC §5.2) is not in the tables: an erased item's rows come with their
 * ids, times and structure and null content (an entity's name, a literal dst, an event's
 * summary, a mention's text and speaker), as do rows read after their key was destroyed;
 * a consumer indexes no null text. An erasure rewrites rows without new record times, and so
 * does a registration that names an erased entity again: deltas do not bring them. A corpus
 * notes `erasureMark` before it reads, and reads it again when `changeMark` moves (both move
 * it); a larger mark means content it holds is gone or renamed (`erasuresSince` says which
 * items lost theirs), so it loads the memory again.
 */
export class PostgresSearchFeed implements SearchFeed {
  constructor(
    private readonly pool: Pool,
    /** Rows per page of a full read: the event loop runs between pages. */
    private readonly pageSize = 10_000,
  ) {}

  /**
   * The read models' checkpoints summed (each partition's): every batch they commit advances one. Other
   * projections' checkpoints (the search index's vectors) change nothing this feed reads.
   */
  async changeMark(): Promise<number> {
    const { rows } = await this.pool.query<{ mark: string | null }>(
      `SELECT sum(position) AS mark FROM rm_checkpoints WHERE ${checkpointsOfSql('$1')}`,
      [READ_MODELS_PROJECTION],
    );
    return Number(rows[0]?.mark ?? 0);
  }

  /**
   * The log position of the memory's latest erasure, or of a registration that named an erased
   * entity again, that the read models applied; 0 when none. It only grows, moves in the transaction
   * that wrote the rows, and costs two index probes.
   */
  async erasureMark(memoryId: string): Promise<number> {
    const { rows } = await this.pool.query<{ mark: string | null }>({
      name: 'memotrace-search-feed-erasure-mark',
      text: `SELECT greatest((SELECT max(position) FROM rm_erasures WHERE memory_id = $1),
                             (SELECT max(position) FROM rm_entity_labels WHERE memory_id = $1 AND kind = 'name')) AS mark`,
      values: [memoryId],
    });
    return Number(rows[0]?.mark ?? 0);
  }

  /** The memory's erasures the read models applied after log position `after` (0: all), in log order. */
  async erasuresSince(memoryId: string, after = 0): Promise<FeedErasure[]> {
    const { rows } = await this.pool.query<{
      position: string;
      recorded_at: string;
      subject_kind: ErasureSubjectKind;
      subject_id: string;
      entities: string[];
      facts: string[];
      events: string[];
      mentions: string[];
    }>(
      `SELECT position, ${epochMs('recorded_at')} AS recorded_at, subject_kind, subject_id, entities, facts, events, mentions
         FROM rm_erasures WHERE memory_id = $1 AND position > $2 ORDER BY position`,
      [memoryId, after],
    );
    return rows.map((row) => ({
      position: Number(row.position),
      recordedAt: instantOfEpochMs(row.recorded_at),
      subject: { kind: row.subject_kind, id: row.subject_id },
      entities: row.entities,
      facts: row.facts,
      events: row.events,
      mentions: row.mentions,
    }));
  }

  async *allItems(memoryId: string): AsyncIterable<SearchDelta> {
    const client = await this.pool.connect();
    let reading: Promise<unknown> | null = null;
    let done = false;
    try {
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      // Names and merges first: facts are rendered with the names.
      const {
        rows: [first],
      } = await client.query<{ entities: Columns; merges: Columns }>(
        `SELECT ${columnsOf(ENTITIES.columns, select(ENTITIES.columns, 'rm_entities WHERE memory_id = $1'))} AS entities,
          ${columnsOf(MERGES.columns, select(MERGES.columns, 'rm_entity_merges WHERE memory_id = $1 ORDER BY seq'))} AS merges`,
        [memoryId],
      );
      yield { ...NONE, entities: ENTITIES.rows(first!.entities), merges: MERGES.rows(first!.merges) };
      for (const name of Object.keys(TABLES) as (keyof typeof TABLES)[]) {
        const table: Table<unknown> = TABLES[name];
        let next = (reading = this.page(client, memoryId, table, null));
        for (;;) {
          const columns = await next;
          const size = columns[0]!.length;
          const full = size === this.pageSize;
          if (full) {
            // The next page is read while the corpus takes this one; a failure is thrown where it is awaited.
            const last = table.key.map((k) => columns[table.columns.indexOf(k)]![size - 1]);
            next = reading = this.page(client, memoryId, table, last);
            next.catch(() => undefined);
          }
          if (size > 0) yield { ...NONE, [name]: table.rows(columns) };
          if (!full) break;
        }
      }
      await client.query('COMMIT');
      done = true;
    } finally {
      // Stopped early (the consumer failed): the page in flight is awaited and the snapshot
      // ended, so the connection goes back to the pool idle.
      if (!done) {
        await reading?.catch(() => undefined);
        await client.query('ROLLBACK').catch(() => undefined);
      }
      client.release();
    }
  }

  /** One page of a full read: the rows after the key `after` in key order. */
  private async page(client: PoolClient, memoryId: string, { table, key, columns }: Table<unknown>, after: unknown[] | null): Promise<Columns> {
    const from = after === null ? 'memory_id = $1' : `(memory_id, ${key.join(', ')}) > ($1, ${key.map((_, i) => `$${i + 2}`).join(', ')})`;
    const rows = select(columns, `${table} WHERE ${from} AND memory_id = $1 ORDER BY memory_id, ${key.join(', ')} LIMIT ${this.pageSize}`);
    const {
      rows: [page],
    } = await client.query<{ page: Columns }>(`SELECT ${columnsOf(columns, rows)} AS page`, [memoryId, ...(after ?? [])]);
    return page!.page;
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
    const versions = ({ table, columns }: Table<unknown>) => {
      const since = (column: string) => (table === TABLES.facts.table ? `${factsAt(column, '>=')} AND ${newer(column)}` : recorded(column));
      return columnsOf(
        columns,
        `${select(columns, `${table} WHERE ${since('recorded_from')}`)} UNION ${select(columns, `${table} WHERE ${since('recorded_to')}`)}`,
      );
    };
    const {
      rows: [found],
    } = await this.pool.query<Record<keyof SearchDelta, Columns>>({
      // One statement: one snapshot, one round trip; named: planned once per connection.
      name: 'memotrace-search-feed-since',
      text: `WITH since AS MATERIALIZED (SELECT ${changed} AS changed)
       SELECT
         ${versions(TABLES.facts)} AS facts,
         ${versions(TABLES.events)} AS events,
         ${versions(TABLES.episodes)} AS episodes,
         ${columnsOf(TABLES.mentions.columns, select(TABLES.mentions.columns, `rm_mentions WHERE ${recorded('recorded_from')}`))} AS mentions,
         ${columnsOf(ENTITIES.columns, select(ENTITIES.columns, `rm_entities WHERE ${recorded('recorded_from')}`))} AS entities,
         ${columnsOf(MERGES.columns, select(MERGES.columns, `rm_entity_merges WHERE ${recorded('recorded_at')} ORDER BY seq`))} AS merges`,
      values: [memoryId, pgInstant(since.at), since.seen],
    });
    return {
      facts: TABLES.facts.rows(found!.facts),
      events: TABLES.events.rows(found!.events),
      episodes: TABLES.episodes.rows(found!.episodes),
      mentions: TABLES.mentions.rows(found!.mentions),
      entities: ENTITIES.rows(found!.entities),
      merges: MERGES.rows(found!.merges),
    };
  }
}

const NONE: SearchDelta = { facts: [], events: [], episodes: [], mentions: [], entities: [], merges: [] };
