import { runSize } from './run-size';

/**
 * CI smoke of `npm run bench:scale`: 10,000 fact versions through the HTTP API of a
 * real service process, then reads compared with the naive one-table baseline. Fails
 * on errors only (HTTP errors, a version count the generator did not expect, answers
 * that differ); the timings it prints are never asserted.
 */
describe('bench:scale smoke (10,000 versions)', () => {
  it('ingests over HTTP and answers every sampled cut like the naive baseline', async () => {
    const lines: string[] = [];
    const figures = await runSize({
      versions: 10_000,
      clients: 4,
      batchSize: 1000,
      queriesPerKind: 30,
      naivePerKind: 30,
      searchItems: 2000,
      seed: 7,
      log: (line) => lines.push(line),
    });
    expect(figures.mismatches).toEqual([]);
    expect(figures.versions).toBeGreaterThanOrEqual(10_000);
    expect(figures.compared).toBeGreaterThanOrEqual(4 * 30);
    expect(figures.reads.get('history')?.client).toHaveLength(30);
    // Every read carried its in-process time (Server-Timing: app;dur=...).
    expect(figures.reads.get('as-world')?.server).toHaveLength(30);
    // The large-memory search ran (2,000 items here).
    expect(figures.largeSearch?.items).toBe(2000);
    expect(figures.reads.get('search:large')?.server).toHaveLength(30);
  }, 300_000);
});
