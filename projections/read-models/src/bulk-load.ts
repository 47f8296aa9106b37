import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { PoolClient } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { type BatchPlan, labelRows, mentionRows } from './batch-plan';
import { pgInstant, pgInstantOrNull } from './instants';
import { EPISODES, EVENTS, FACTS, TOPICS, type VersionTable, erasureColumns, nameKey } from './read-model-writes';
import type { VersionLedger } from './version-ledger';

/**
 * Bulk load of a whole-log plan into empty tables (the rebuild's build schema) with
 * COPY: the same values the projector's json_to_recordset statements write, so the
 * rebuilt tables are identical to live ones. Column kinds say how a value is encoded
 * in COPY's text format.
 */
type Kind = 'text' | 'number' | 'json' | 'text[]';
type Column = [name: string, kind: Kind];

/** COPY text format: backslash escapes; NULL is \N. */
function escapeText(value: string): string {
  return /[\\\n\r\t]/.test(value)
    ? value.replace(/[\\\n\r\t]/g, (c) => (c === '\\' ? '\\\\' : c === '\n' ? '\\n' : c === '\r' ? '\\r' : '\\t'))
    : value;
}

/** An array literal of text elements, every element quoted. */
function textArray(values: readonly string[]): string {
  return `{${values.map((v) => `"${v.replace(/[\\"]/g, (c) => `\\${c}`)}"`).join(',')}}`;
}

function field(value: unknown, kind: Kind): string {
  if (value === null || value === undefined) return '\\N';
  switch (kind) {
    case 'number':
      return String(value);
    case 'json':
      return escapeText(JSON.stringify(value));
    case 'text[]':
      return escapeText(textArray(value as string[]));
    case 'text':
      return escapeText(String(value));
  }
}

/** Bytes of COPY data sent per chunk. */
const CHUNK_BYTES = 1 << 20;

/**
 * Streams `rows` (values in `columns` order) into `table` with one COPY. Lines are written
 * into off-heap buffers as they are made: a megabyte string per chunk would outlive the young
 * generation, and its promotion would make V8 mark the whole plan again and again, turning the
 * load phase into mostly garbage collection.
 */
export async function copyRows(client: PoolClient, table: string, columns: readonly Column[], rows: Iterable<readonly unknown[]>): Promise<number> {
  const kinds = columns.map(([, kind]) => kind);
  let count = 0;
  function* chunks(): Generator<Buffer> {
    let chunk = Buffer.allocUnsafeSlow(CHUNK_BYTES);
    let used = 0;
    for (const row of rows) {
      count += 1;
      let line = field(row[0], kinds[0]!);
      for (let i = 1; i < kinds.length; i++) line += '\t' + field(row[i], kinds[i]!);
      line += '\n';
      // At most 3 UTF-8 bytes per UTF-16 code unit.
      if (used + line.length * 3 > chunk.length) {
        if (used > 0) yield chunk.subarray(0, used);
        chunk = Buffer.allocUnsafeSlow(Math.max(CHUNK_BYTES, line.length * 3));
        used = 0;
      }
      used += chunk.write(line, used);
    }
    if (used > 0) yield chunk.subarray(0, used);
  }
  const sql = `COPY ${table} (${columns.map(([name]) => name).join(', ')}) FROM STDIN`;
  await pipeline(Readable.from(chunks(), { objectMode: false }), client.query(copyFrom(sql)));
  return count;
}

const kindOfType = (type: string): Kind =>
  type === 'jsonb'
    ? 'json'
    : type === 'text[]'
      ? 'text[]'
      : type === 'double precision' || type === 'integer' || type === 'bigint'
        ? 'number'
        : 'text';

async function copyVersions<C>(client: PoolClient, ledger: VersionLedger<C>, spec: VersionTable<C>): Promise<number> {
  // Built from empty tables: every close lands on a row of the plan itself.
  if (ledger.closes.length > 0) throw new Error(`${spec.table}: a bulk plan cannot close stored versions`);
  const columns: Column[] = [
    ['memory_id', 'text'],
    [spec.idColumn, 'text'],
    ['version_no', 'number'],
    ['recorded_from', 'text'],
    ['recorded_to', 'text'],
    ['prev_recorded_to', 'text'],
    ...spec.columns.map(([name, type]): Column => [name, kindOfType(type)]),
  ];
  const names = spec.columns.map(([name]) => name);
  return copyRows(
    client,
    spec.table,
    columns,
    (function* () {
      for (const row of ledger.rows) {
        const encoded = spec.encode(row.content);
        yield [
          row.memoryId,
          row.id,
          row.versionNo,
          pgInstant(row.recordedFrom),
          pgInstantOrNull(row.recordedTo),
          pgInstantOrNull(row.prevRecordedTo),
          ...names.map((name) => encoded[name]),
        ];
      }
    })(),
  );
}

/** The first row per key, as ON CONFLICT DO NOTHING keeps it. */
function firstPerKey<T>(rows: readonly T[], key: (row: T) => string): T[] {
  const seen = new Map<string, T>();
  for (const row of rows) if (!seen.has(key(row))) seen.set(key(row), row);
  return [...seen.values()];
}

/** Writes a plan folded from the whole log (no stored heads) into empty read-model tables; returns the rows written per table. */
export async function bulkLoadPlan(client: PoolClient, plan: BatchPlan): Promise<Map<string, number>> {
  const written = new Map<string, number>();
  written.set(FACTS.table, await copyVersions(client, plan.facts, FACTS));
  written.set(EVENTS.table, await copyVersions(client, plan.events, EVENTS));
  written.set(EPISODES.table, await copyVersions(client, plan.episodes, EPISODES));
  written.set(TOPICS.table, await copyVersions(client, plan.topics, TOPICS));
  const copy = async (table: string, columns: readonly Column[], rows: Iterable<readonly unknown[]>) =>
    void written.set(table, await copyRows(client, table, columns, rows));
  const at = pgInstant;
  await copy(
    'rm_entities',
    [
      ['memory_id', 'text'],
      ['entity_id', 'text'],
      ['name', 'text'],
      ['recorded_from', 'text'],
      ['position', 'number'],
      ['name_key', 'text'],
      ['erased', 'text'],
    ],
    plan.entities.map((e) => [e.memoryId, e.entityId, e.name, at(e.recordedFrom), e.position, nameKey(e.name), e.erased === true]),
  );
  await copy(
    'rm_entity_labels',
    [
      ['memory_id', 'text'],
      ['entity_id', 'text'],
      ['kind', 'text'],
      ['value', 'text'],
      ['recorded_from', 'text'],
      ['position', 'number'],
      ['idx', 'number'],
      ['value_key', 'text'],
    ],
    labelRows(plan).map((l) => [l.memoryId, l.entityId, l.kind, l.value, at(l.recordedFrom), l.position, l.idx, nameKey(l.value)]),
  );
  await copy(
    'rm_entity_merges',
    [
      ['memory_id', 'text'],
      ['seq', 'number'],
      ['src_id', 'text'],
      ['dst_id', 'text'],
      ['src_root', 'text'],
      ['dst_root', 'text'],
      ['recorded_at', 'text'],
    ],
    plan.merges.map((m) => [m.memoryId, m.seq, m.srcId, m.dstId, m.srcRoot, m.dstRoot, at(m.recordedAt)]),
  );
  await copy(
    'rm_relations',
    [
      ['memory_id', 'text'],
      ['rel', 'text'],
      ['cardinality', 'text'],
      ['recorded_from', 'text'],
    ],
    [...plan.relations.values()].map((r) => [r.memoryId, r.rel, r.cardinality, at(r.recordedFrom)]),
  );
  await copy(
    'rm_event_links',
    [
      ['memory_id', 'text'],
      ['kind', 'text'],
      ['from_event', 'text'],
      ['to_event', 'text'],
      ['qualifier', 'text'],
      ['recorded_from', 'text'],
    ],
    [...plan.links.values()].map((l) => [l.memoryId, l.kind, l.from, l.to, l.qualifier, at(l.recordedFrom)]),
  );
  await copy(
    'rm_mentions',
    [
      ['memory_id', 'text'],
      ['mention_id', 'text'],
      ['doc_id', 'text'],
      ['text', 'text'],
      ['speaker', 'text'],
      ['occurred_at', 'text'],
      ['recorded_from', 'text'],
      ['erased', 'text'],
    ],
    firstPerKey(mentionRows(plan), (m) => `${m.memoryId}\u0000${m.mentionId}`).map((m) => [
      m.memoryId,
      m.mentionId,
      m.docId,
      m.text,
      m.speaker,
      pgInstantOrNull(m.occurredAt),
      at(m.recordedFrom),
      m.erased === true,
    ]),
  );
  const erasureColumnNames: Column[] = [
    ['memory_id', 'text'],
    ['position', 'number'],
    ['recorded_at', 'text'],
    ['subject_kind', 'text'],
    ['subject_id', 'text'],
    ['entities', 'text[]'],
    ['facts', 'text[]'],
    ['events', 'text[]'],
    ['mentions', 'text[]'],
  ];
  await copy(
    'rm_erasures',
    erasureColumnNames,
    plan.erasures.map((e) => {
      const columns = erasureColumns(e);
      return erasureColumnNames.map(([name]) => columns[name]);
    }),
  );
  return written;
}
