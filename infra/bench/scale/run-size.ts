import { createPool } from '@memotrace/postgres';
import { percentile } from '../stats';
import { ingest } from './ingest';
import { loadNaiveBaseline } from './naive-baseline';
import { CUT_KINDS, type Latencies, QueryRunner, planCuts } from './queries';
import { Rng } from './rng';
import { type LargeSearchFigures, searchLargeMemory } from './search-memory';
import { startServer } from './server';
import { scaleShape } from './workload';

export interface ScaleOptions {
  versions: number;
  clients: number;
  batchSize: number;
  /** Measured queries per read kind on the service. */
  queriesPerKind: number;
  /** Of those, cuts also run on the naive baseline and compared. */
  naivePerKind: number;
  /** Items of the one large memory searched at the end (0: none). */
  searchItems: number;
  seed: number;
  log: (line: string) => void;
}

export interface SizeFigures {
  versions: number;
  memories: number;
  entities: number;
  commands: number;
  appendedPerSecond: number;
  projectedPerSecond: number;
  /** Service CPU per command (µs) while appending, and until projected. */
  appendCpuMicros: number;
  projectedCpuMicros: number;
  /** Share of one core the service used while appending. */
  appendCpuShare: number;
  lagMs: number[];
  lagRecords: number[];
  reads: Map<string, Latencies>;
  rssBytes: number;
  peakRssBytes: number;
  databaseBytes: number;
  naive: { rows: number; bytes: number; seconds: number };
  largeSearch: (LargeSearchFigures & { rssBytes: number }) | null;
  compared: number;
  mismatches: string[];
}

/** One size in a fresh database: ingest over HTTP, then reads, then the naive baseline side by side. */
export async function runSize(options: ScaleOptions): Promise<SizeFigures> {
  const shape = scaleShape(options.versions, options.batchSize, options.seed);
  const { log } = options;
  log(
    `== ${options.versions.toLocaleString('en')} versions: ${shape.memories} memories × ${shape.entitiesPerMemory} entities, ` +
      `${options.clients} clients, batches of ${shape.batchSize}`,
  );
  const server = await startServer();
  const pool = createPool(server.databaseUrl);
  try {
    let lastLog = Date.now();
    const result = await ingest(server.url, pool, shape, options.clients, server, (done) => {
      if (Date.now() - lastLog < 10_000) return;
      lastLog = Date.now();
      log(`   ingest: ${done.toLocaleString('en')} commands, server RSS ${mb(server.rssBytes())}`);
    });
    log(
      `   appended ${result.commands.toLocaleString('en')} commands in ${result.appendSeconds.toFixed(1)} s, ` +
        `projected in ${result.projectedSeconds.toFixed(1)} s`,
    );
    const { rows } = await pool.query<{ versions: string; size: string }>(
      'SELECT (SELECT count(*) FROM rm_fact_versions) AS versions, pg_database_size(current_database()) AS size',
    );
    const stored = Number(rows[0]!.versions);
    if (stored !== result.versions) throw new Error(`the read models hold ${stored} fact versions, the generator expected ${result.versions}`);

    // What autovacuum does within a minute of a bulk load; without statistics the planner scans the memory's whole
    // cut (GiST) instead of the entity's versions (btree). The naive table is analysed after its load too.
    await pool.query('ANALYZE');
    const runner = new QueryRunner(server.url, pool);
    const cuts = planCuts(result.samples, options.queriesPerKind, options.seed + 1);
    for (const cut of cuts.slice(0, 20)) await runner.cut(cut, { service: false, naive: 'off' }); // warm-up
    for (const cut of cuts) await runner.cut(cut, { service: true, naive: 'off' });
    const rng = new Rng(options.seed + 2);
    for (let i = 0; i < options.queriesPerKind; i++) {
      const memory = rng.pick(result.samples);
      const factId = rng.pick(memory.factIds);
      await runner.history(memory.memoryId, factId);
      await runner.audit(memory.memoryId, factId);
    }
    const searches = Math.min(options.queriesPerKind, 100);
    for (let i = 0; i < searches; i++) {
      const memory = rng.pick(result.samples);
      await runner.search(
        memory.memoryId,
        `Person ${memory.memoryId.slice(-3).replace(/^0+/, '') || '0'}-${rng.int(shape.entitiesPerMemory)} works at`,
      );
    }
    const rssAfterReads = server.rssBytes();

    log('   loading the naive baseline');
    const naive = await loadNaiveBaseline(pool);
    log(`   naive baseline: ${naive.rows.toLocaleString('en')} rows in ${naive.seconds.toFixed(1)} s`);
    for (const cut of cuts.slice(0, 20)) await runner.cut(cut, { service: false, naive: false }); // warm-up
    const perKind = new Map<string, number>();
    for (const cut of cuts) {
      const n = perKind.get(cut.kind) ?? 0;
      if (n >= options.naivePerKind) continue;
      perKind.set(cut.kind, n + 1);
      await runner.cut(cut, { service: false, naive: true }); // the service was timed above, before the baseline shared its cache
    }
    let largeSearch: SizeFigures['largeSearch'] = null;
    if (options.searchItems > 0) {
      log(`   searching one memory of ${options.searchItems.toLocaleString('en')} items`);
      largeSearch = {
        ...(await searchLargeMemory(server.url, runner, options.searchItems, Math.min(options.queriesPerKind, 200), options.seed + 3)),
        rssBytes: server.rssBytes(),
      };
    }
    return {
      versions: stored,
      memories: shape.memories,
      entities: shape.memories * shape.entitiesPerMemory,
      commands: result.commands,
      appendedPerSecond: result.commands / result.appendSeconds,
      projectedPerSecond: result.commands / result.projectedSeconds,
      appendCpuMicros: (result.appendCpuSeconds / result.commands) * 1e6,
      projectedCpuMicros: (result.projectedCpuSeconds / result.commands) * 1e6,
      appendCpuShare: result.appendCpuSeconds / result.appendSeconds,
      lagMs: result.lagMs,
      lagRecords: result.lagRecords,
      reads: runner.latencies,
      rssBytes: rssAfterReads,
      peakRssBytes: Math.max(result.peakRssBytes, server.peakRssBytes()),
      databaseBytes: Number(rows[0]!.size),
      naive,
      largeSearch,
      compared: runner.compared,
      mismatches: runner.mismatches,
    };
  } finally {
    await pool.end();
    await server.stop();
  }
}

export function mb(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(0)} MB`;
}

export { CUT_KINDS, percentile };
