import { cpus, totalmem } from 'node:os';
import { answeredPercentile, clientTimeOf } from '../compare/search';
import type { CompareShape } from '../compare/workload';
import { configsNamed } from '../compare/run-config';
import { integerSetting } from '../settings';
import { type RunFigures, runSearchBench } from './run';

/**
 * `npm run bench:search [-- --versions N]`: search on one memory whose facts are mostly
 * about one person (BENCH_SEARCH_FOCUS, default 0.8 of them), as a memory of one user is.
 * A fresh service (`npm start`, embedded PostgreSQL unless DATABASE_URL is set) ingests it
 * from one client in batches of 500 commands, timed until a read with `minPosition` of the
 * last answer returns; the same versions then go into a plain table by multi-row INSERTs of
 * 500 rows. Then the first search, searches of common words (the focused person's name and
 * relation words most facts have) and of rare ones (another person, a place), a restart on
 * the same data and the first search again. Prints each figure beside its target; exits
 * non-zero on an error, never on a timing.
 *
 * Environment: BENCH_SEARCH_VERSIONS (100000), BENCH_SEARCH_ENTITIES (2000),
 * BENCH_SEARCH_FOCUS (0.8), BENCH_SEARCH_QUERIES (100 per class), BENCH_SEARCH_SEED (7),
 * BENCH_SEARCH_CONFIGS (default: EMBEDDINGS unset; `off`: EMBEDDINGS=off; both: default,off).
 */
const env = process.env;

function versionsArgument(argv: readonly string[]): string | undefined {
  if (argv.length === 0) return undefined;
  const [flag, value] = argv[0]!.includes('=') ? argv[0]!.split('=', 2) : [argv[0], argv[1]];
  if (flag !== '--versions' || argv.length > (argv[0]!.includes('=') ? 1 : 2)) throw new Error(`expected --versions N, got ${argv.join(' ')}`);
  return value;
}

function report(f: RunFigures): string[] {
  const large = f.versions >= 1_000_000;
  const rss = (f.peakServiceRssBytes + f.peakChildRssBytes) / 1024 ** 2;
  const ratio = f.rawSeconds / f.ingestSeconds;
  const target = large ? 50 : 30;
  return [
    `| ${f.config}, ${f.versions.toLocaleString('en')} versions | figure | target |`,
    '|---|---|---|',
    `| first search | ${clientTimeOf(f.firstSearch)} | <= 250 ms |`,
    `| first search after a restart | ${clientTimeOf(f.firstAfterRestart)} | <= 250 ms |`,
    `| common words, p50 / p95 | ${answeredPercentile(f.common, 50)} / ${answeredPercentile(f.common, 95)} | p95 <= ${target} ms |`,
    `| rare words, p50 / p95 | ${answeredPercentile(f.rare, 50)} / ${answeredPercentile(f.rare, 95)} | p95 <= ${target} ms |`,
    `| service + embedder RSS, peak | ${rss.toFixed(0)} MiB (service ${(f.peakServiceRssBytes / 1024 ** 2).toFixed(0)}) | ${large ? '< 1 GB' : ''} |`,
    `| ingest until readable vs raw multi-row INSERT | ${ratio.toFixed(2)}x (${f.ingestSeconds.toFixed(1)} s vs ${f.rawSeconds.toFixed(1)} s) ` +
      '| >= 0.3x |',
  ];
}

async function main(): Promise<void> {
  const versions = integerSetting('--versions', versionsArgument(process.argv.slice(2)) ?? env['BENCH_SEARCH_VERSIONS'], 100_000, 1000);
  const focus = Number(env['BENCH_SEARCH_FOCUS'] ?? 0.8);
  if (!(focus >= 0 && focus <= 1)) throw new Error(`BENCH_SEARCH_FOCUS must be within 0 and 1, got ${env['BENCH_SEARCH_FOCUS']}`);
  const shape: CompareShape = {
    memoryId: 'search',
    versions,
    entities: integerSetting('BENCH_SEARCH_ENTITIES', env['BENCH_SEARCH_ENTITIES'], 2000, 10),
    batchSize: 500,
    seed: integerSetting('BENCH_SEARCH_SEED', env['BENCH_SEARCH_SEED'], 7, 0),
    focus,
  };
  const queries = integerSetting('BENCH_SEARCH_QUERIES', env['BENCH_SEARCH_QUERIES'], 100, 1);
  const configs = configsNamed('BENCH_SEARCH_CONFIGS', env['BENCH_SEARCH_CONFIGS'] ?? 'default');
  console.log(`bench:search on ${cpus().length} cores, ${Math.round(totalmem() / 1024 ** 3)} GiB, Node ${process.versions.node}`);
  const all: RunFigures[] = [];
  for (const config of configs) all.push(await runSearchBench(config, shape, queries, (line) => console.log(line)));
  for (const f of all) console.log(['', ...report(f)].join('\n'));
}

main().catch((error: Error) => {
  console.error(error);
  process.exit(1);
});
