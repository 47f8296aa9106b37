import { Rng } from '../scale/rng';
import { request } from './http';
import { type CutFact, RawCuts, sameVersions } from './raw-baseline';
import type { WorkloadSample } from './workload';

export interface CutFigures {
  /** Client-side ms of the measured cuts (warm-up excluded). */
  service: number[];
  raw: number[];
  /** Cuts whose two answers were compared (warm-up included), and those with at least one fact. */
  compared: number;
  nonEmpty: number;
  mismatches: string[];
}

/**
 * The As-World entity cut (`src=E&validAt=T`, record time now) both ways, one after the
 * other on the same (E, T): the service over keep-alive HTTP, the raw table by a prepared
 * statement. Which side goes first alternates, so neither always finds the other's cache
 * state. Every answer pair must hold the same versions.
 */
export async function compareCuts(
  url: string,
  databaseUrl: string,
  memoryId: string,
  sample: WorkloadSample,
  options: { warmup: number; measured: number; seed: number },
): Promise<CutFigures> {
  const rng = new Rng(options.seed);
  const people = sample.entities.filter((e) => e.type === 'person').map((e) => e.id);
  // Up to a year past the last validFrom: open facts are still valid there, so late cuts are not empty.
  const span = sample.maxValidMs + 365 * 86_400_000 - sample.minValidMs;
  const raw = new RawCuts(databaseUrl);
  await raw.connect();
  const figures: CutFigures = { service: [], raw: [], compared: 0, nonEmpty: 0, mismatches: [] };
  try {
    for (let i = 0; i < options.warmup + options.measured; i++) {
      const src = rng.pick(people);
      const validAt = new Date(Math.floor(sample.minValidMs + rng.next() * span)).toISOString();
      const path = `${url}/v1/memories/${encodeURIComponent(memoryId)}/facts?src=${encodeURIComponent(src)}&validAt=${encodeURIComponent(validAt)}`;
      const viaService = () => request<{ facts: CutFact[] }>(path);
      let service: Awaited<ReturnType<typeof viaService>>;
      let sql: Awaited<ReturnType<RawCuts['cut']>>;
      if (i % 2 === 0) {
        service = await viaService();
        sql = await raw.cut(memoryId, src, validAt);
      } else {
        sql = await raw.cut(memoryId, src, validAt);
        service = await viaService();
      }
      if (i >= options.warmup) {
        figures.service.push(service.clientMs);
        figures.raw.push(sql.ms);
      }
      figures.compared += 1;
      if (sql.facts.length > 0 || service.body.facts.length > 0) figures.nonEmpty += 1;
      if (!sameVersions(service.body.facts, sql.facts)) {
        figures.mismatches.push(
          `src=${src} validAt=${validAt}: service [${service.body.facts.map((f) => f.factId).join(', ')}], ` +
            `raw SQL [${sql.facts.map((f) => f.factId).join(', ')}]`,
        );
      }
    }
  } finally {
    await raw.end();
  }
  return figures;
}
