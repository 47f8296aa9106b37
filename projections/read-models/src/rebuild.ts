import type { Instant } from '@memotrace/domain';
import type { LogStore } from '@memotrace/log-store';
import { MEMORY_STREAM_PREFIX } from '@memotrace/memory-log';
import { type ProjectedRecord, isCheckpointOf, projectedRecordOf } from '@memotrace/projection';
import { inTransaction } from '@memotrace/postgres';
import type { Pool, PoolClient } from 'pg';
import { applyToPlan, emptyPlan } from './batch-plan';
import { bulkLoadPlan } from './bulk-load';
import { READ_MODELS_PROJECTION, readModelsProjection } from './read-models-projection';
import { READ_MODEL_TABLES, readModelStatements } from './schema';

/**
 * Rebuild of the read models from the log, blue/green.
 *
 * - To the head (`to` absent): the tables are built from position 0 in a new
 *   schema `rm_build_<ms>` (same DDL as the migration) while the live tables keep
 *   serving and the live projector keeps writing them. Then ONE transaction locks
 *   the live tables (ACCESS EXCLUSIVE, checkpoints first, so the live projector
 *   waits), applies what the live projector committed meanwhile, and swaps the
 *   tables by `ALTER TABLE ... SET SCHEMA` (build tables into the live schema, live
 *   ones into `rm_retired_<ms>`, dropped after the commit unless `keepOld`).
 *   Statements waiting on those locks re-resolve the table names after the commit,
 *   so readers and the live projector simply continue on the new tables: the
 *   projector locks the new checkpoint row and skips what the build already applied.
 * - To a record time T: only records with recordedAt <= T are applied, into a
 *   frozen snapshot schema `rm_snapshot_<ms>` that is NOT switched in: the records
 *   left out are not a prefix of the log (record time is monotone per memory, not
 *   globally), so no checkpoint could let the live projector resume from it. The
 *   live read models and projector are untouched; the snapshot is queried by
 *   explicit request (`snapshotSearchPath`: a pool whose search_path is the
 *   snapshot schema) and dropped with `dropSchema` when no longer needed. Since
 *   record time is monotone per memory, it answers every query at record time
 *   <= T exactly as the live projection does. Erasures recorded after T are applied
 *   too (an erasure changes the past); one accepted after the snapshot was built does
 *   not reach it: drop the snapshot (or build it again).
 */
export interface RebuildProgress {
  schema: string;
  to: Instant | null;
  phase: 'building' | 'loading' | 'indexing' | 'switching' | 'done';
  /** Log records read so far, of `total` (the log head's position when the rebuild started). */
  done: number;
  total: number;
  /** Records applied (those recorded by T, for a rebuild to T). */
  applied: number;
  eventsPerSecond: number;
  /** Estimated seconds left; null before the first batch. */
  etaSeconds: number | null;
  elapsedMs: number;
}

export interface RebuildOptions {
  pool: Pool;
  store: LogStore;
  /** Apply only records recorded at or before T, into a snapshot schema (no switch). */
  to?: Instant;
  /** Log records read per page (default 20,000). */
  batchSize?: number;
  onProgress?: (progress: RebuildProgress) => void;
  /** Keep the retired live tables (schema `rm_retired_<ms>`) after a switch. */
  keepOld?: boolean;
}

export interface RebuildResult {
  schema: string;
  mode: 'switched' | 'snapshot';
  /** The build's checkpoint: every log record up to it was read. */
  position: number;
  applied: number;
  elapsedMs: number;
  eventsPerSecond: number;
  /** After a switch with keepOld: where the previous tables are. */
  retiredSchema?: string;
}

const SCHEMA_NAME = /^rm_(build|snapshot|retired)_\d+$/;

export async function rebuildReadModels(options: RebuildOptions): Promise<RebuildResult> {
  const { pool, store, to } = options;
  const batchSize = Math.max(1, options.batchSize ?? 20_000);
  const stamp = Date.now();
  const schema = `${to === undefined ? 'rm_build' : 'rm_snapshot'}_${stamp}`;
  const live = await liveSchema(pool);
  const started = performance.now();
  const total = await store.headPosition();
  let done = 0;
  let applied = 0;
  const report = (phase: RebuildProgress['phase']) => {
    const elapsedMs = performance.now() - started;
    const eventsPerSecond = elapsedMs > 0 ? Math.round((done / elapsedMs) * 1000) : 0;
    const etaSeconds = eventsPerSecond > 0 ? Math.max(0, (total - done) / eventsPerSecond) : null;
    options.onProgress?.({ schema, to: to ?? null, phase, done, total, applied, eventsPerSecond, etaSeconds, elapsedMs });
  };

  await createSchema(pool, schema, live);
  try {
    let position = 0;
    report('building');
    // Fold the whole log into one plan in memory (nothing else writes the build tables, so no
    // heads are read back), reading the log in large pages ...
    const plan = emptyPlan();
    while (position < total) {
      const page = (await store.readAllContent({ fromPosition: position, maxCount: batchSize, streamPrefix: MEMORY_STREAM_PREFIX })).filter(
        (e) => e.position <= total,
      );
      if (page.length === 0) break;
      for (const stored of page) {
        const record = projectedRecordOf(stored);
        if (record === null || record.changes.length === 0) continue;
        if (to !== undefined && record.recordedAt > to) {
          // An erasure changes the past: the snapshot applies those recorded after T too (as reading folds do).
          const erasures = record.changes.filter((change) => change.change === 'erased');
          if (erasures.length > 0) applyToPlan(plan, { ...record, changes: erasures });
          continue;
        }
        applyToPlan(plan, record);
        applied += 1;
      }
      position = page[page.length - 1]!.position;
      done = position;
      report('building');
    }
    done = total;
    // ... then COPY it into the tables, which have no index (not even their keys) or constraint yet ...
    report('loading');
    const rows = await inSchema(pool, schema, live, async (client) => {
      const written = await bulkLoadPlan(client, plan);
      await client.query('UPDATE rm_checkpoints SET position = $2 WHERE projection = $1', [READ_MODELS_PROJECTION, position]);
      return written;
    });
    // ... and build those after (primary keys included: a sorted build each) on two connections at
    // once, split by rows x key width (CREATE INDEX locks share; nothing else uses the build
    // schema, so each part commits on its own and a failure drops the schema below), then the
    // constraints, which lock exclusively (the keys are attached to their indexes, the version
    // chains checked, once, over the whole build).
    report('indexing');
    const deferred = readModelStatements.filter(isDeferred);
    const run = (statements: readonly string[]) =>
      inSchema(pool, schema, live, async (client) => {
        await client.query(`SET LOCAL maintenance_work_mem = '512MB'`);
        for (const sql of statements) await client.query(sql);
      });
    await Promise.all(
      twoLanes(
        deferred.filter((sql) => !isConstraint(sql)),
        rows,
      ).map(run),
    );
    await run([...deferred.filter(isConstraint), `ANALYZE ${READ_MODEL_TABLES.join(', ')}`]);
    if (to !== undefined) {
      report('done');
      return { schema, mode: 'snapshot', position, applied, ...rate() };
    }
    report('switching');
    const retired = `rm_retired_${stamp}`;
    applied += await switchIn(pool, store, schema, live, retired, batchSize);
    if (!options.keepOld) await dropSchema(pool, retired);
    report('done');
    return { schema, mode: 'switched', position, applied, ...rate(), ...(options.keepOld ? { retiredSchema: retired } : {}) };
  } catch (error) {
    await dropSchema(pool, schema).catch(() => undefined);
    throw error;
  }

  function rate() {
    const elapsedMs = performance.now() - started;
    return { elapsedMs, eventsPerSecond: elapsedMs > 0 ? Math.round((total / elapsedMs) * 1000) : 0 };
  }
}

/** `options` for a pg Pool/Client that reads a snapshot schema (tables there, extensions in the live schema). */
export function snapshotSearchPath(schema: string, live = 'public'): string {
  assertSchemaName(schema);
  return `-c search_path=${schema},${live}`;
}

/** Drops a build, snapshot or retired schema (only those: the name is checked). */
export async function dropSchema(pool: Pick<Pool, 'query'>, schema: string): Promise<void> {
  assertSchemaName(schema);
  await pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
}

/** Secondary indexes and table constraints: created after the bulk load. */
function isDeferred(sql: string): boolean {
  return /^(CREATE (UNIQUE )?INDEX|ALTER TABLE)/.test(sql.trimStart());
}

function isConstraint(sql: string): boolean {
  return /^ALTER TABLE/.test(sql.trimStart());
}

function isGist(sql: string): boolean {
  return /\bUSING gist\b/i.test(sql);
}

/**
 * Index builds split into two lanes of about equal cost, largest first. Cost: the table's rows
 * times the key's width (commas + 1: a btree build's time grows with its key's columns), a GiST
 * build as three btree builds.
 */
function twoLanes(statements: readonly string[], rows: ReadonlyMap<string, number>): [string[], string[]] {
  const cost = (sql: string) => (rows.get(/ ON (\w+)/.exec(sql)?.[1] ?? '') ?? 0) * sql.split(',').length * (isGist(sql) ? 3 : 1);
  const lanes: [string[], string[]] = [[], []];
  const load = [0, 0];
  for (const sql of [...statements].sort((a, b) => cost(b) - cost(a))) {
    const lane = load[0]! <= load[1]! ? 0 : 1;
    lanes[lane].push(sql);
    load[lane]! += cost(sql);
  }
  return lanes;
}

function assertSchemaName(schema: string): void {
  if (!SCHEMA_NAME.test(schema)) throw new Error(`not a rebuild schema: ${schema}`);
}

/** The records of a page that change something. */
function changing(page: readonly (ProjectedRecord | null)[]): ProjectedRecord[] {
  return page.filter((r): r is ProjectedRecord => r !== null && r.changes.length > 0);
}

async function applyBatch(client: PoolClient, records: readonly ProjectedRecord[], last: number): Promise<void> {
  if (records.length > 0) await readModelsProjection.handle(records, client);
  await client.query('UPDATE rm_checkpoints SET position = $2 WHERE projection = $1', [READ_MODELS_PROJECTION, last]);
}

async function liveSchema(pool: Pool): Promise<string> {
  const { rows } = await pool.query<{ schema: string }>(`SELECT n.nspname AS schema FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE c.oid = to_regclass('rm_checkpoints')`);
  if (!rows[0]) throw new Error('no read models: run the migrations first');
  return rows[0].schema;
}

async function createSchema(pool: Pool, schema: string, live: string): Promise<void> {
  await inTransaction(pool, async (client) => {
    await client.query(`CREATE SCHEMA ${schema}`);
    await client.query(`SET LOCAL search_path TO ${schema}, ${live}`);
    for (const sql of readModelStatements) if (!sql.startsWith('CREATE EXTENSION') && !isDeferred(sql)) await client.query(sql);
    await client.query('INSERT INTO rm_checkpoints (projection, position) VALUES ($1, 0)', [READ_MODELS_PROJECTION]);
  });
}

/** Unqualified table names resolve to `schema` first, for this transaction only. */
function inSchema<T>(pool: Pool, schema: string, live: string, work: (client: PoolClient) => Promise<T>): Promise<T> {
  return inTransaction(pool, async (client) => {
    await client.query(`SET LOCAL search_path TO ${schema}, ${live}`);
    return work(client);
  });
}

/**
 * The atomic switch: lock the live tables (the live projector's checkpoint first),
 * catch the build up to the live checkpoint, swap schemas. Retried on a deadlock or
 * lock timeout (a long reader holding one table while waiting for another).
 */
async function switchIn(pool: Pool, store: LogStore, build: string, live: string, retired: string, batchSize: number): Promise<number> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await inSchema(pool, build, live, async (client) => {
        await client.query(`SET LOCAL lock_timeout = '10s'`);
        // Checkpoints first (the live projector locks them first), then merges (multi-statement readers read them first).
        const first = ['rm_checkpoints', 'rm_entity_merges'];
        const tables = [...first, ...READ_MODEL_TABLES.filter((t) => !first.includes(t))];
        await client.query(`LOCK TABLE ${tables.map((t) => `${live}.${t}`).join(', ')} IN ACCESS EXCLUSIVE MODE`);
        const { rows } = await client.query<{ projection: string; position: string }>(`SELECT projection, position FROM ${live}.rm_checkpoints`);
        // With partitioned projectors: catch up to the furthest partition; all of them then resume from the build's position.
        const ownRows = rows.filter((r) => isCheckpointOf(r.projection, READ_MODELS_PROJECTION));
        const livePosition = Math.max(0, ...ownRows.map((r) => Number(r.position)));
        // Other projections' checkpoints (if any) stay as they were.
        for (const row of rows) {
          if (isCheckpointOf(row.projection, READ_MODELS_PROJECTION)) continue;
          await client.query('INSERT INTO rm_checkpoints (projection, position) VALUES ($1, $2)', [row.projection, row.position]);
        }
        const { rows: own } = await client.query<{ position: string }>('SELECT position FROM rm_checkpoints WHERE projection = $1', [
          READ_MODELS_PROJECTION,
        ]);
        let position = Number(own[0]!.position);
        let applied = 0;
        // What the live projector committed while the build ran (the build is never behind it after this).
        while (position < livePosition) {
          const page = (await store.readAllContent({ fromPosition: position, maxCount: batchSize, streamPrefix: MEMORY_STREAM_PREFIX })).filter(
            (e) => e.position <= livePosition,
          );
          if (page.length === 0) break;
          const records = changing(page.map(projectedRecordOf));
          position = page[page.length - 1]!.position;
          await applyBatch(client, records, position);
          applied += records.length;
        }
        const partitionRows = ownRows.filter((r) => r.projection !== READ_MODELS_PROJECTION).map((r) => r.projection);
        if (partitionRows.length > 0) {
          await client.query('INSERT INTO rm_checkpoints (projection, position) SELECT unnest($1::text[]), $2', [partitionRows, position]);
          if (!ownRows.some((r) => r.projection === READ_MODELS_PROJECTION))
            await client.query('DELETE FROM rm_checkpoints WHERE projection = $1', [READ_MODELS_PROJECTION]);
        }
        await client.query(`CREATE SCHEMA ${retired}`);
        for (const table of tables) {
          await client.query(`ALTER TABLE ${live}.${table} SET SCHEMA ${retired}`);
          await client.query(`ALTER TABLE ${build}.${table} SET SCHEMA ${live}`);
        }
        await client.query(`DROP SCHEMA ${build}`);
        return applied;
      });
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (attempt < 5 && (code === '40P01' || code === '55P03')) continue; // deadlock detected, lock not available
      throw error;
    }
  }
}
