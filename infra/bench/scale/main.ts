import { growthTable, readTable, sizeSummary } from './report';
import { type SizeFigures, runSize } from './run-size';

/**
 * `npm run bench:scale`: for each size of BENCH_SCALE_SIZES (default
 * 10000,100000,1000000 fact versions), a fresh MemoTrace (`npm start` wiring, child
 * process, embedded PostgreSQL unless DATABASE_URL is set) ingests a generated
 * memory set over HTTP, then answers timed reads, side by side with the naive
 * one-table baseline. Exits non-zero on errors (HTTP, mismatched answers), never on timings.
 */
const env = process.env;
const sizes = (env['BENCH_SCALE_SIZES'] ?? '10000,100000,1000000').split(',').map((s) => Number(s.trim()));
const num = (name: string, fallback: number) => Number(env[name] ?? fallback);

async function main(): Promise<void> {
  if (sizes.some((s) => !Number.isInteger(s) || s < 1000))
    throw new Error(`BENCH_SCALE_SIZES must be integers >= 1000, got ${env['BENCH_SCALE_SIZES']}`);
  const all: SizeFigures[] = [];
  let mismatches = 0;
  for (const versions of sizes) {
    const figures = await runSize({
      versions,
      clients: num('BENCH_SCALE_CLIENTS', 4),
      batchSize: num('BENCH_SCALE_BATCH', 1000),
      queriesPerKind: num('BENCH_SCALE_QUERIES', 300),
      naivePerKind: num('BENCH_SCALE_NAIVE_QUERIES', 100),
      searchItems: num('BENCH_SCALE_SEARCH_ITEMS', 100_000),
      seed: num('BENCH_SCALE_SEED', 7),
      log: (line) => console.log(line),
    });
    all.push(figures);
    for (const line of sizeSummary(figures)) console.log(`   ${line}`);
    console.log('');
    for (const line of readTable(figures)) console.log(line);
    for (const mismatch of figures.mismatches.slice(0, 10)) console.error(`MISMATCH ${mismatch}`);
    mismatches += figures.mismatches.length;
    console.log('');
  }
  console.log('growth (p95 figures are server-side ms):');
  for (const line of growthTable(all)) console.log(line);
  if (mismatches > 0) throw new Error(`${mismatches} answers differ from the naive baseline`);
}

main().catch((error: Error) => {
  console.error(error);
  process.exit(1);
});
