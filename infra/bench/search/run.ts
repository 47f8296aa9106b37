import { createPool } from '@memotrace/postgres';
import { Rng } from '../scale/rng';
import { startServer } from '../scale/server';
import { ingest } from '../compare/ingest';
import { NOTE_OBJECTS, STATUSES, type NamedEntity } from '../compare/names';
import { loadRawBaseline } from '../compare/raw-baseline';
import { MemorySampler, cpuOf } from '../compare/resources';
import { type SearchTiming, clientTimeOf, searchOnce } from '../compare/search';
import { type CompareShape, emptyWorkloadSample } from '../compare/workload';
import type { ServiceConfig } from '../compare/run-config';

/** Questions an agent asks about the person most facts name: each names them and a relation's words. */
function commonQuestion(rng: Rng, focus: NamedEntity): string {
  return rng.pick([
    `where does ${focus.name} work?`,
    `where does ${focus.name} live`,
    `who does ${focus.name} know`,
    `what is ${focus.name} doing these days?`,
    `places ${focus.name} visited`,
    `${focus.name} ${rng.pick(STATUSES)}`,
  ]);
}

/** Questions about what few facts name: another person, a place, an organisation, an object. */
function rareQuestion(rng: Rng, others: readonly NamedEntity[]): string {
  const other = rng.pick(others);
  return rng.pick([`${other.name}`, `what about ${other.name}?`, `${other.name} and ${rng.pick(NOTE_OBJECTS)}`]);
}

export interface RunFigures {
  config: string;
  versions: number;
  ingestSeconds: number;
  rawSeconds: number;
  firstSearch: SearchTiming;
  common: SearchTiming[];
  rare: SearchTiming[];
  firstAfterRestart: SearchTiming;
  peakServiceRssBytes: number;
  peakChildRssBytes: number;
}

/**
 * One configuration in a fresh service: ingest (timed until readable), the first search, the raw
 * INSERTs of the same versions, `queries` searches of each class, a restart and the first search again.
 */
export async function runSearchBench(config: ServiceConfig, shape: CompareShape, queries: number, log: (line: string) => void): Promise<RunFigures> {
  log(`== ${config.name}: ${shape.versions.toLocaleString('en')} fact versions, ${(shape.focus ?? 0) * 100}% about one person`);
  const server = await startServer(process.env, { embeddings: config.embeddings });
  const sampler = new MemorySampler(() => server.pid).start(1000);
  try {
    const sample = emptyWorkloadSample();
    const ingested = await ingest(server.url, shape, sample, () => cpuOf(server.pid), log);
    log(`   ${ingested.commands.toLocaleString('en')} commands readable after ${ingested.projectedSeconds.toFixed(1)} s`);
    const firstSearch = await searchOnce(server.url, shape.memoryId, `where does ${sample.entities[0]!.name} work?`);
    log(`   first search ${clientTimeOf(firstSearch)}`);
    const raw = await loadRawBaseline(server.databaseUrl, shape.memoryId, shape.batchSize);
    log(`   raw INSERTs: ${raw.rows.toLocaleString('en')} rows in ${raw.seconds.toFixed(1)} s`);
    const pool = createPool(server.databaseUrl);
    await pool.query('DROP TABLE bench_raw_versions').finally(() => pool.end());

    const focus = sample.entities[0]!;
    const others = sample.entities.slice(1);
    const rng = new Rng(shape.seed + 2);
    const common: SearchTiming[] = [];
    const rare: SearchTiming[] = [];
    // Alternating, so the two classes see the same machine.
    for (let q = 0; q < queries; q++) {
      common.push(await searchOnce(server.url, shape.memoryId, commonQuestion(rng, focus)));
      rare.push(await searchOnce(server.url, shape.memoryId, rareQuestion(rng, others)));
    }
    const peakBefore = server.peakRssBytes();
    log('   restarting the service on the same data');
    await server.restart();
    const firstAfterRestart = await searchOnce(server.url, shape.memoryId, `where does ${focus.name} work?`);
    log(`   first search after the restart ${clientTimeOf(firstAfterRestart)}`);
    sampler.sample();
    return {
      config: config.name,
      versions: sample.versions,
      ingestSeconds: ingested.projectedSeconds,
      rawSeconds: raw.seconds,
      firstSearch,
      common,
      rare,
      firstAfterRestart,
      peakServiceRssBytes: Math.max(sampler.peak.serviceRssBytes, peakBefore, server.peakRssBytes()),
      peakChildRssBytes: sampler.peak.childRssBytes,
    };
  } finally {
    sampler.stop();
    await server.stop();
  }
}
