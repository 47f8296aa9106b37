import { cpus, totalmem } from 'node:os';
import { detailLines, embeddingCostTable, resultTable, targetLines } from './report';
import { type CompareOptions, type ConfigFigures, configsNamed, runConfig } from './run-config';
import { integerSetting } from '../settings';

/**
 * `npm run bench:compare [-- --versions N] [--sustained | --no-sustained]`: the service
 * against raw SQL on the same PostgreSQL, in one run, once with the default
 * configuration (EMBEDDINGS unset) and once with EMBEDDINGS=off, each in a fresh
 * service started as `npm start` does. Prints every ratio of the table and a
 * line per target. Exits non-zero on an error or on answers that differ, never on timings.
 *
 * Environment: BENCH_COMPARE_VERSIONS (100000), BENCH_COMPARE_ENTITIES (2000),
 * BENCH_COMPARE_BATCH (500), BENCH_COMPARE_CUTS (500), BENCH_COMPARE_WARMUP (50),
 * BENCH_COMPARE_SEARCHES (100), BENCH_COMPARE_SEED (7), BENCH_COMPARE_CONFIGS
 * (default,off), BENCH_COMPARE_SUSTAINED (on at 1,000,000 versions),
 * BENCH_COMPARE_SUSTAINED_RATE (10000), BENCH_COMPARE_SUSTAINED_SECONDS (30).
 */
const env = process.env;

function parseArgs(argv: readonly string[]): { versions: number | undefined; sustained: boolean | undefined } {
  let versions: number | undefined;
  let sustained: boolean | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--versions') versions = Number(argv[++i]);
    else if (arg.startsWith('--versions=')) versions = Number(arg.slice('--versions='.length));
    else if (arg === '--sustained') sustained = true;
    else if (arg === '--no-sustained') sustained = false;
    else throw new Error(`unknown argument ${arg}: expected --versions N, --sustained or --no-sustained`);
  }
  return { versions, sustained };
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const versions = integerSetting('--versions', args.versions ?? env['BENCH_COMPARE_VERSIONS'], 100_000, 1000);
  const sustained = args.sustained ?? (env['BENCH_COMPARE_SUSTAINED'] ? env['BENCH_COMPARE_SUSTAINED'] !== '0' : versions >= 1_000_000);
  const configs = configsNamed('BENCH_COMPARE_CONFIGS', env['BENCH_COMPARE_CONFIGS'] ?? 'default,off');
  const options: CompareOptions = {
    versions,
    entities: integerSetting('BENCH_COMPARE_ENTITIES', env['BENCH_COMPARE_ENTITIES'], 2000, 10),
    batchSize: integerSetting('BENCH_COMPARE_BATCH', env['BENCH_COMPARE_BATCH'], 500, 1),
    warmupCuts: integerSetting('BENCH_COMPARE_WARMUP', env['BENCH_COMPARE_WARMUP'], 50, 0),
    cuts: integerSetting('BENCH_COMPARE_CUTS', env['BENCH_COMPARE_CUTS'], 500, 1),
    searches: integerSetting('BENCH_COMPARE_SEARCHES', env['BENCH_COMPARE_SEARCHES'], 100, 1),
    seed: integerSetting('BENCH_COMPARE_SEED', env['BENCH_COMPARE_SEED'], 7, 0),
    sustained: sustained
      ? {
          perSecond: integerSetting('BENCH_COMPARE_SUSTAINED_RATE', env['BENCH_COMPARE_SUSTAINED_RATE'], 10_000, 1),
          seconds: integerSetting('BENCH_COMPARE_SUSTAINED_SECONDS', env['BENCH_COMPARE_SUSTAINED_SECONDS'], 30, 1),
        }
      : null,
    log: (line) => console.log(line),
  };

  console.log(
    `bench:compare on ${cpus().length} cores, ${Math.round(totalmem() / 1024 ** 3)} GiB, Node ${process.versions.node}; ` +
      `configurations: ${configs.map((c) => c.name).join(', ')}`,
  );
  const all: ConfigFigures[] = [];
  for (const config of configs) all.push(await runConfig(config, options));

  console.log('');
  for (const line of resultTable(all)) console.log(line);
  console.log('');
  for (const line of embeddingCostTable(all)) console.log(line);
  console.log('');
  for (const f of all) for (const line of detailLines(f)) console.log(line);
  console.log('');
  for (const line of targetLines(all, versions)) console.log(line);

  const mismatches = all.flatMap((f) => f.cuts.mismatches.map((m) => `${f.config.name}: ${m}`));
  for (const mismatch of mismatches.slice(0, 10)) console.error(`MISMATCH ${mismatch}`);
  if (mismatches.length > 0) throw new Error(`${mismatches.length} service answers differ from the raw SQL answers`);
}

main().catch((error: Error) => {
  console.error(error);
  process.exit(1);
});
