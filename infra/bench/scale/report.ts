import { percentile } from '../stats';
import { CUT_KINDS } from './queries';
import { type SizeFigures, mb } from './run-size';

const f2 = (ms: number) => (Number.isNaN(ms) ? 'n/a' : ms.toFixed(2));
const n0 = (x: number) => Math.round(x).toLocaleString('en');

/** p50 / p95 / p99 of the service (server-side, then client-side) and the naive baseline per read kind. */
export function readTable(figures: SizeFigures): string[] {
  const lines = [
    '| read | server p50 / p95 / p99 ms | client p50 / p95 / p99 ms | naive SQL p50 / p95 / p99 ms | naive p95 ÷ server p95 |',
    '|---|---|---|---|---|',
  ];
  const triple = (samples: number[] | undefined) =>
    samples && samples.length > 0 ? `${f2(percentile(samples, 50))} / ${f2(percentile(samples, 95))} / ${f2(percentile(samples, 99))}` : '—';
  for (const kind of [...CUT_KINDS, 'history', 'audit', 'search', 'search:large'] as const) {
    const service = figures.reads.get(kind);
    const naive =
      kind === 'history' || kind === 'audit' || kind === 'search' || kind === 'search:large' ? undefined : figures.reads.get(`naive:${kind}`);
    const ratio = service && naive ? `${(percentile(naive.server, 95) / percentile(service.server, 95)).toFixed(1)}×` : '—';
    const label =
      kind === 'timeline'
        ? 'timeline (validAt=*)'
        : kind === 'search:large'
          ? `search, one memory of ${n0(figures.largeSearch?.items ?? 0)} items (warm)`
          : kind;
    lines.push(`| ${label} | ${triple(service?.server)} | ${triple(service?.client)} | ${triple(naive?.server)} | ${ratio} |`);
  }
  return lines;
}

export function sizeSummary(figures: SizeFigures): string[] {
  return [
    `versions ${n0(figures.versions)}, commands ${n0(figures.commands)}, memories ${figures.memories}, entities ${n0(figures.entities)}`,
    `ingest: ${n0(figures.appendedPerSecond)} commands/s appended, ${n0(figures.projectedPerSecond)} commands/s projected (read models caught up)`,
    `service CPU per command: ${f2(figures.appendCpuMicros)} µs while appending (${n0(figures.appendCpuShare * 100)} % of one core), ` +
      `${f2(figures.projectedCpuMicros)} µs until projected`,
    `projection lag: p50 ${f2(percentile(figures.lagMs, 50))} ms, p95 ${f2(percentile(figures.lagMs, 95))} ms (n=${figures.lagMs.length}); ` +
      `behind the head: p50 ${n0(percentile(figures.lagRecords, 50))}, p95 ${n0(percentile(figures.lagRecords, 95))} events`,
    `server RSS after reads ${mb(figures.rssBytes)}, peak ${mb(figures.peakRssBytes)}; database ${mb(figures.databaseBytes)} ` +
      `(naive table ${mb(figures.naive.bytes)}, ${n0(figures.naive.rows)} rows)`,
    `answers compared with the naive baseline: ${figures.compared}, mismatches: ${figures.mismatches.length}`,
    ...(figures.largeSearch
      ? [
          `large memory: ${n0(figures.largeSearch.items)} items written in ${f2(figures.largeSearch.ingestSeconds)} s; ` +
            `first search (loads its corpus) ${f2(figures.largeSearch.coldServerMs)} ms server-side; ` +
            `server RSS after ${mb(figures.largeSearch.rssBytes)}`,
        ]
      : []),
  ];
}

/** How each headline figure grows with size. */
export function growthTable(all: readonly SizeFigures[]): string[] {
  const p95 = (figures: SizeFigures, kind: string) => {
    const samples = figures.reads.get(kind)?.server;
    return samples ? f2(percentile(samples, 95)) : '—';
  };
  const lines = [
    '| versions | appended cmd/s | projected cmd/s | lag p95 ms | as-world p95 | as-recorded p95 | bitemporal p95 | timeline p95 | ' +
      'history p95 | audit p95 | search p95 | large-memory search p95 | naive bitemporal p95 | peak RSS | database |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const f of all) {
    lines.push(
      `| ${n0(f.versions)} | ${n0(f.appendedPerSecond)} | ${n0(f.projectedPerSecond)} | ${f2(percentile(f.lagMs, 95))} | ` +
        `${p95(f, 'as-world')} | ${p95(f, 'as-recorded')} | ${p95(f, 'bitemporal')} | ${p95(f, 'timeline')} | ` +
        `${p95(f, 'history')} | ${p95(f, 'audit')} | ${p95(f, 'search')} | ${p95(f, 'search:large')} | ${p95(f, 'naive:bitemporal')} | ` +
        `${mb(f.peakRssBytes)} | ${mb(f.databaseBytes)} |`,
    );
  }
  return lines;
}
