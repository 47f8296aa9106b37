import { percentile } from '../stats';
import type { MemoryFigures } from './resources';
import { type ConfigFigures, DEFAULT_CONFIG, EMBEDDINGS_OFF } from './run-config';

const n0 = (x: number) => (Number.isFinite(x) ? Math.round(x).toLocaleString('en') : 'n/a');
const ms = (x: number, digits = 2) => (Number.isFinite(x) ? `${x.toFixed(digits)} ms` : 'n/a');
const times = (x: number) => (Number.isFinite(x) ? `${x.toFixed(2)}x` : 'n/a');
const mb = (bytes: number) => `${Math.round(bytes / 1024 / 1024).toLocaleString('en')} MB`;

/** The figures the table and the targets are made of, per configuration. */
export interface Headline {
  versionsPerSecond: number;
  commandsPerSecond: number;
  appendedCommandsPerSecond: number;
  rawRowsPerSecond: number;
  cutP95: number;
  rawCutP95: number;
  searchFirst: number;
  searchFirstAfterRestart: number;
  searchP95: number;
}

export function headline(f: ConfigFigures): Headline {
  const searchMs = f.searches.map((s) => s.clientMs).filter((x) => Number.isFinite(x));
  return {
    versionsPerSecond: f.versions / f.ingest.projectedSeconds,
    commandsPerSecond: f.ingest.commands / f.ingest.projectedSeconds,
    appendedCommandsPerSecond: f.ingest.commands / f.ingest.appendSeconds,
    rawRowsPerSecond: f.raw.rows / f.raw.seconds,
    cutP95: percentile(f.cuts.service, 95),
    rawCutP95: percentile(f.cuts.raw, 95),
    searchFirst: f.firstSearch.clientMs,
    searchFirstAfterRestart: f.firstSearchAfterRestart.clientMs,
    searchP95: percentile(searchMs, 95),
  };
}

/** The issue's table: one row per configuration, every time client-side. */
export function resultTable(all: readonly ConfigFigures[]): string[] {
  const lines = [
    '| config | ingest (appended + projected) | vs raw multi-row INSERT | cut p95 (client) | vs raw SQL p95 | search first / p95 |',
    '|---|---|---|---|---|---|',
  ];
  for (const f of all) {
    const h = headline(f);
    lines.push(
      `| ${f.config.name} ` +
        `| ${n0(h.versionsPerSecond)} versions/s (${n0(h.commandsPerSecond)} commands/s; appended ${n0(h.appendedCommandsPerSecond)} commands/s) ` +
        `| ${times(h.versionsPerSecond / h.rawRowsPerSecond)} (raw ${n0(h.rawRowsPerSecond)} rows/s) ` +
        `| ${ms(h.cutP95)} ` +
        `| ${times(h.cutP95 / h.rawCutP95)} (raw ${ms(h.rawCutP95)}) ` +
        `| ${ms(h.searchFirst, 1)} / ${ms(h.searchP95, 1)} (first after restart ${ms(h.searchFirstAfterRestart, 1)}) |`,
    );
  }
  return lines;
}

/** Default ÷ embeddings off: what embedding costs the command path and the queries. */
export function embeddingCostTable(all: readonly ConfigFigures[]): string[] {
  const on = all.find((f) => f.config === DEFAULT_CONFIG);
  const off = all.find((f) => f.config === EMBEDDINGS_OFF);
  if (!on || !off) return ['(embedding cost: needs both configurations in the run)'];
  const a = headline(on);
  const b = headline(off);
  return [
    '| default ÷ EMBEDDINGS=off | ingest time (appended + projected) | append time | cut p95 | search p95 | first search ' +
      '| first search after restart |',
    '|---|---|---|---|---|---|---|',
    `| ratio | ${times(b.commandsPerSecond / a.commandsPerSecond)} | ${times(b.appendedCommandsPerSecond / a.appendedCommandsPerSecond)} ` +
      `| ${times(a.cutP95 / b.cutP95)} | ${times(a.searchP95 / b.searchP95)} | ${times(a.searchFirst / b.searchFirst)} ` +
      `| ${times(a.searchFirstAfterRestart / b.searchFirstAfterRestart)} |`,
  ];
}

/** Everything else each configuration measured, in sentences. */
export function detailLines(f: ConfigFigures): string[] {
  const h = headline(f);
  const search = f.searches.map((s) => s.clientMs).filter((x) => Number.isFinite(x));
  const server = f.searches.map((s) => s.serverMs).filter((x) => Number.isFinite(x));
  const unembedded = [f.firstSearch, ...f.searches, f.firstSearchAfterRestart].map((s) => s.unembedded);
  const lines = [
    `${f.config.name}:`,
    `  memory: ${n0(f.versions)} fact versions of ${n0(f.facts)} facts (${n0(f.sample.supersessions)} supersessions), ` +
      `${n0(f.sample.entities.length)} entities; ${n0(f.ingest.commands)} UPSERT_EDGE commands in ${n0(f.ingest.batches)} batches ` +
      `(one version each, two when a \`one\` fact supersedes another), after ${n0(f.sample.setupCommands)} setup commands (not timed)`,
    `  ingest: appended in ${f.ingest.appendSeconds.toFixed(2)} s, read-your-writes after ${f.ingest.projectedSeconds.toFixed(2)} s; ` +
      `CPU over that time: service ${cpu(f.ingest.cpu.service, f.ingest.projectedSeconds)}, ` +
      `PostgreSQL ${cpu(f.ingest.cpu.postgres, f.ingest.projectedSeconds)}, other children ${cpu(f.ingest.cpu.other, f.ingest.projectedSeconds)}`,
    `  raw: ${n0(f.raw.rows)} rows in ${f.raw.seconds.toFixed(2)} s of INSERTs (${f.raw.batches} statements, one connection), ` +
      `${f.raw.index}, table + index ${mb(f.raw.bytes)}; compared as versions/s: service ${n0(h.versionsPerSecond)} ÷ raw ${n0(h.rawRowsPerSecond)}`,
    `  cuts (As-World, src=E&validAt=T): service p50 / p95 / p99 ${triple(f.cuts.service)}, raw SQL ${triple(f.cuts.raw)} ` +
      `(n=${f.cuts.service.length} each after a warm-up); ${f.cuts.compared} answer pairs compared, ${f.cuts.nonEmpty} non-empty, ` +
      `${f.cuts.mismatches.length} mismatches`,
    `  search: first ${ms(f.firstSearch.clientMs, 1)} (server ${ms(f.firstSearch.serverMs, 1)}), then ${search.length} more: ` +
      `p50 ${ms(percentile(search, 50), 1)}, p95 ${ms(percentile(search, 95), 1)} client` +
      (server.length > 0 ? `, p95 ${ms(percentile(server, 95), 1)} server` : '') +
      `; first after the restart ${ms(f.firstSearchAfterRestart.clientMs, 1)} (server ${ms(f.firstSearchAfterRestart.serverMs, 1)}); ` +
      `${f.searches.filter((s) => s.items === 0).length} found nothing`,
    unembedded.every((u) => u === undefined)
      ? '  search answers carry no `unembedded` count'
      : `  items ranked without vectors (unembedded): first ${unembedded[0] ?? '—'}, then p50 ${percentile(
          unembedded.slice(1, -1).filter((u): u is number => u !== undefined),
          50,
        )}, after the restart ${unembedded.at(-1) ?? '—'}`,
  ];
  const refused = [f.firstSearch, ...f.searches, f.firstSearchAfterRestart].filter((s) => s.refused !== null);
  if (refused.length > 0)
    lines.push(`  search refused ${refused.length} times (${[...new Set(refused.map((s) => s.refused))].join(', ')}): n/a above`);
  if (f.embeddingBacklog.length > 0)
    lines.push(`  search index behind the memory's last event: ${f.embeddingBacklog.map((b) => `${n0(b.events)} events at ${b.at}`).join(', ')}`);
  lines.push(
    `  RSS: service process peak ${mb(f.peakMemory.serviceRssBytes)}, at the end of the measurements ${mb(f.endMemory.serviceRssBytes)}; ` +
      `${childProcesses(f.peakMemory)}; ` +
      `PostgreSQL processes PSS peak ${mb(f.peakMemory.postgresPssBytes)}`,
  );
  if (f.sustained) {
    const s = f.sustained;
    lines.push(
      `  sustained: target ${n0(s.targetPerSecond)} commands/s, achieved ${n0(s.achievedPerSecond)} (${n0(s.commands)} commands in ` +
        `${s.seconds.toFixed(1)} s, ${s.lateBatches} batches sent late); projection lag p50 / p95 / max ` +
        `${ms(percentile(s.lagMs, 50), 0)} / ${ms(percentile(s.lagMs, 95), 0)} / ${ms(Math.max(...s.lagMs), 0)} (checkpoint sampled every 25 ms)`,
    );
  }
  return lines;
}

function childProcesses(memory: MemoryFigures): string {
  const names = Object.entries(memory.children);
  if (names.length === 0) return 'no other child processes';
  return `other child processes RSS peak ${mb(memory.childRssBytes)} (${names.map(([name, rss]) => `${name} ${mb(rss)}`).join(', ')})`;
}

function cpu(seconds: number, wall: number): string {
  return `${seconds.toFixed(1)} s (${n0((100 * seconds) / wall)} % of one core)`;
}

function triple(samples: readonly number[]): string {
  return `${ms(percentile(samples, 50))} / ${ms(percentile(samples, 95))} / ${ms(percentile(samples, 99))}`;
}

const verdict = (met: boolean | null) => (met === null ? 'not measured' : met ? 'met' : 'NOT MET');

/** One line per target of the issue, on the default configuration where it names one. */
export function targetLines(all: readonly ConfigFigures[], versions: number): string[] {
  const main = all.find((f) => f.config === DEFAULT_CONFIG) ?? all[0]!;
  const off = all.find((f) => f.config === EMBEDDINGS_OFF);
  const on = all.find((f) => f.config === DEFAULT_CONFIG);
  const h = headline(main);
  const label = main.config === DEFAULT_CONFIG ? 'default configuration' : `${main.config.name} (the default configuration did not run)`;
  const million = versions >= 1_000_000;
  // The raw INSERTs of a run with embeddings on share the cores with the embedder's backlog;
  // the quietest raw rate of the run is the baseline the ratio is held to.
  const bestRaw = Math.max(...all.map((f) => headline(f).rawRowsPerSecond));
  const ingestRatio = h.versionsPerSecond / bestRaw;
  // The cuts run interleaved, each pair under the same load: the verdict is on the pair's own ratio.
  const bestRawCut = Math.min(...all.map((f) => headline(f).rawCutP95));
  const lines = [
    `targets (${label}, ${n0(main.versions)} versions):`,
    `- ingest >= 0.3x raw multi-row INSERT: ${times(ingestRatio)} (service ${n0(h.versionsPerSecond)} versions/s ÷ fastest raw INSERT ` +
      `of the run ${n0(bestRaw)} rows/s; ${times(h.versionsPerSecond / h.rawRowsPerSecond)} against its own run's raw rate): ` +
      verdict(ingestRatio >= 0.3),
    `- >= 20,000 commands/s projected at 1,000,000 versions: ${n0(h.commandsPerSecond)} commands/s at ${n0(main.versions)}: ` +
      `${million ? verdict(h.commandsPerSecond >= 20_000) : 'not measured (run with --versions 1000000)'}`,
  ];
  if (main.sustained) {
    const s = main.sustained;
    const p95 = percentile(s.lagMs, 95);
    const steady = s.achievedPerSecond >= 0.95 * s.targetPerSecond;
    lines.push(
      `- projection lag p95 < 1 s at a sustained 10,000 commands/s: ${ms(p95, 0)} at ${n0(s.achievedPerSecond)} commands/s achieved: ` +
        `${steady ? verdict(p95 < 1000) : `${verdict(false)} (the rate was not sustained)`}`,
    );
  } else lines.push('- projection lag p95 < 1 s at a sustained 10,000 commands/s: not measured (run with --sustained)');
  lines.push(
    `- entity cut p95 <= 3x raw SQL (client-side, interleaved): ${times(h.cutP95 / h.rawCutP95)} (${ms(h.cutP95)} vs ${ms(h.rawCutP95)}; ` +
      `against the run's fastest raw p95 ${ms(bestRawCut)}: ${times(h.cutP95 / bestRawCut)}): ${verdict(h.cutP95 <= 3 * h.rawCutP95)}`,
    `- first search <= 250 ms, also after a restart (memory of ${n0(main.versions)} fact versions): ${ms(h.searchFirst, 1)}, ` +
      `after restart ${ms(h.searchFirstAfterRestart, 1)}: ${verdict(h.searchFirst <= 250 && h.searchFirstAfterRestart <= 250)}`,
    `- search p95 <= 30 ms: ${ms(h.searchP95, 1)}: ${verdict(h.searchP95 <= 30)}`,
  );
  if (on && off) {
    const a = headline(on);
    const b = headline(off);
    const costs = [b.commandsPerSecond / a.commandsPerSecond, a.cutP95 / b.cutP95, a.searchP95 / b.searchP95];
    lines.push(
      `- embedding costs the command path and queries <= 10% (default ÷ off): ingest ${times(costs[0]!)}, cut p95 ${times(costs[1]!)}, ` +
        `search p95 ${times(costs[2]!)}: ${verdict(costs.every((c) => c <= 1.1))}`,
    );
  } else lines.push('- embedding costs <= 10%: not measured (needs both configurations)');
  // The server is the service process and whatever it starts besides PostgreSQL (an embedding worker, say).
  const rss = on ? on.peakMemory.serviceRssBytes + on.peakMemory.childRssBytes : undefined;
  lines.push(
    `- server RSS < 1 GB at 1,000,000 versions with embeddings on: ` +
      (rss === undefined
        ? 'not measured (the default configuration did not run)'
        : `peak ${mb(rss)} (service process and its non-PostgreSQL children) at ${n0(on!.versions)} versions` +
          (million ? `: ${verdict(rss < 1024 ** 3)}` : ' (not measured at 1,000,000: run with --versions 1000000)')),
  );
  return lines;
}
