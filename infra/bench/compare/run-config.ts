import { createPool } from '@memotrace/postgres';
import type { Pool } from 'pg';
import { percentile } from '../stats';
import { startServer } from '../scale/server';
import { type CutFigures, compareCuts } from './cuts';
import { type IngestFigures, ingest } from './ingest';
import { embeddingBacklog, logPositions } from './positions';
import { type RawLoad, loadRawBaseline } from './raw-baseline';
import { type MemoryFigures, MemorySampler, cpuOf } from './resources';
import { type SearchTiming, answeredPercentile, clientTimeOf, firstQuestion, questions, searchOnce } from './search';
import { type SustainedFigures, sustainedRate } from './sustained';
import { type CompareShape, type WorkloadSample, emptyWorkloadSample } from './workload';

/** A service configuration the benchmark compares: its name and the EMBEDDINGS it starts with (null: unset). */
export interface ServiceConfig {
  name: string;
  embeddings: string | null;
}

export const DEFAULT_CONFIG: ServiceConfig = { name: 'default (EMBEDDINGS unset)', embeddings: null };
export const EMBEDDINGS_OFF: ServiceConfig = { name: 'EMBEDDINGS=off', embeddings: 'off' };

/** The configurations a comma-separated list names (`default`, `off`), as the variable `variable` gives it. */
export function configsNamed(variable: string, list: string): ServiceConfig[] {
  const known: Record<string, ServiceConfig> = { default: DEFAULT_CONFIG, off: EMBEDDINGS_OFF };
  return list.split(',').map((name) => {
    const config = known[name.trim()];
    if (!config) throw new Error(`${variable}: unknown configuration ${name} (expected default, off)`);
    return config;
  });
}

export interface CompareOptions {
  versions: number;
  entities: number;
  batchSize: number;
  warmupCuts: number;
  cuts: number;
  searches: number;
  seed: number;
  sustained: { perSecond: number; seconds: number } | null;
  log: (line: string) => void;
}

export interface ConfigFigures {
  config: ServiceConfig;
  sample: WorkloadSample;
  /** Rows of rm_fact_versions in the memory, and its distinct facts. */
  versions: number;
  facts: number;
  ingest: IngestFigures;
  raw: RawLoad;
  cuts: CutFigures;
  firstSearch: SearchTiming;
  searches: SearchTiming[];
  firstSearchAfterRestart: SearchTiming;
  /** Events the search index was behind the memory's last one, at named moments (embeddings on only). */
  embeddingBacklog: Array<{ at: string; events: number }>;
  sustained: SustainedFigures | null;
  /** Peaks over the run (both processes, before and after the restart), and at the end of the measurements. */
  peakMemory: MemoryFigures;
  endMemory: MemoryFigures;
}

/**
 * One configuration in a fresh service: ingest, read-your-writes, the first search,
 * the raw SQL baseline in the same database, the cuts both ways, more searches, the
 * sustained rate if asked, then a restart and the first search again.
 */
export async function runConfig(config: ServiceConfig, options: CompareOptions): Promise<ConfigFigures> {
  const { log } = options;
  const shape: CompareShape = {
    memoryId: 'compare',
    versions: options.versions,
    entities: options.entities,
    batchSize: options.batchSize,
    seed: options.seed,
  };
  log(`== ${config.name}: ${options.versions.toLocaleString('en')} fact versions, ${options.entities.toLocaleString('en')} entities, one client`);
  const server = await startServer(process.env, { embeddings: config.embeddings });
  const sampler = new MemorySampler(() => server.pid).start(1000);
  let pool: Pool | undefined;
  try {
    pool = createPool(server.databaseUrl);
    const { rows: version } = await pool.query<{ server_version: string }>('SHOW server_version');
    log(`   service pid ${server.pid}, PostgreSQL ${version[0]!.server_version}`);
    const sample = emptyWorkloadSample();
    const ingested = await ingest(server.url, shape, sample, () => cpuOf(server.pid), log);
    const backlog: ConfigFigures['embeddingBacklog'] = [];
    const noteBacklog = async (at: string) => {
      if (config.embeddings === 'off') return;
      const [head] = await logPositions(pool!, shape.memoryId, [ingested.position]);
      const events = await embeddingBacklog(pool!, head!);
      backlog.push({ at, events });
      log(`   search index: ${events.toLocaleString('en')} log records behind the memory's last (${at})`);
    };
    log(
      `   setup ${sample.setupCommands.toLocaleString('en')} commands in ${ingested.setupSeconds.toFixed(1)} s; ` +
        `${ingested.commands.toLocaleString('en')} edge commands appended in ${ingested.appendSeconds.toFixed(1)} s, ` +
        `read-your-writes after ${ingested.projectedSeconds.toFixed(1)} s`,
    );
    await noteBacklog('read-your-writes');
    const { rows } = await pool.query<{ versions: string; facts: string }>(
      'SELECT count(*) AS versions, count(DISTINCT fact_id) AS facts FROM rm_fact_versions WHERE memory_id = $1',
      [shape.memoryId],
    );
    const versions = Number(rows[0]!.versions);
    const facts = Number(rows[0]!.facts);
    log(`   the read models hold ${versions.toLocaleString('en')} fact versions of ${facts.toLocaleString('en')} facts`);
    if (versions !== sample.versions || facts !== sample.facts)
      throw new Error(`the generator expected ${sample.versions} versions of ${sample.facts} facts, the read models hold ${versions} of ${facts}`);

    const firstSearch = await searchOnce(server.url, shape.memoryId, firstQuestion(sample));
    log(`   first search: ${shown(firstSearch)}`);

    log('   raw SQL baseline: multi-row INSERTs of the same versions');
    await noteBacklog('raw INSERTs start');
    const raw = await loadRawBaseline(server.databaseUrl, shape.memoryId, options.batchSize);
    log(`   raw: ${raw.rows.toLocaleString('en')} rows in ${raw.seconds.toFixed(1)} s (${raw.batches} INSERTs), ${raw.index}`);
    if (raw.rows !== versions) throw new Error(`the raw table holds ${raw.rows} rows, the read models ${versions} versions`);
    // What autovacuum does within a minute of a bulk load, so neither side runs on a plan without statistics.
    await pool.query('ANALYZE rm_fact_versions');

    await noteBacklog('cuts start');
    const cuts = await compareCuts(server.url, server.databaseUrl, shape.memoryId, sample, {
      warmup: options.warmupCuts,
      measured: options.cuts,
      seed: options.seed + 1,
    });
    log(
      `   cuts: service p95 ${percentile(cuts.service, 95).toFixed(2)} ms, raw SQL p95 ${percentile(cuts.raw, 95).toFixed(2)} ms; ` +
        `${cuts.compared} compared (${cuts.nonEmpty} non-empty), ${cuts.mismatches.length} mismatches`,
    );

    const searches: SearchTiming[] = [];
    for (const question of questions(sample, options.searches, options.seed + 2))
      searches.push(await searchOnce(server.url, shape.memoryId, question));
    log(
      `   ${searches.length} searches: p50 ${answeredPercentile(searches, 50)}, p95 ${answeredPercentile(searches, 95)} client; ` +
        `${searches.filter((s) => s.refused === null && s.items === 0).length} found nothing`,
    );
    await noteBacklog('searches end');

    let sustained: SustainedFigures | null = null;
    if (options.sustained) {
      log(`   sustained: ${options.sustained.perSecond.toLocaleString('en')} commands/s for ${options.sustained.seconds} s into a second memory`);
      sustained = await sustainedRate(server.url, pool, { ...options.sustained, batchSize: options.batchSize, seed: options.seed + 3 });
      log(
        `   sustained: ${Math.round(sustained.achievedPerSecond).toLocaleString('en')} commands/s achieved, ` +
          `projection lag p50 ${percentile(sustained.lagMs, 50).toFixed(0)} ms, p95 ${percentile(sustained.lagMs, 95).toFixed(0)} ms`,
      );
    }

    const endMemory = sampler.sample();
    const peakBeforeRestart = server.peakRssBytes();
    await pool.end();
    pool = undefined;
    log('   restarting the service on the same data');
    await server.restart();
    pool = createPool(server.databaseUrl);
    await noteBacklog('after the restart');
    const firstSearchAfterRestart = await searchOnce(server.url, shape.memoryId, firstQuestion(sample));
    log(`   first search after the restart: ${shown(firstSearchAfterRestart)}`);
    sampler.sample();
    const peakMemory = { ...sampler.peak, serviceRssBytes: Math.max(sampler.peak.serviceRssBytes, peakBeforeRestart, server.peakRssBytes()) };
    return {
      config,
      sample,
      versions,
      facts,
      ingest: ingested,
      raw,
      cuts,
      firstSearch,
      searches,
      firstSearchAfterRestart,
      embeddingBacklog: backlog,
      sustained,
      peakMemory,
      endMemory,
    };
  } finally {
    sampler.stop();
    await pool?.end();
    await server.stop();
  }
}

/** A search's times, and how many items it ranked without vectors; or the code it was refused with. */
function shown(search: SearchTiming): string {
  if (search.refused !== null) return clientTimeOf(search);
  const unembedded = search.unembedded === undefined ? '' : `, ${search.unembedded} items ranked without vectors`;
  return `${clientTimeOf(search)} client, ${search.serverMs.toFixed(1)} ms server${unembedded}`;
}
