import { runSearchBench } from './run';

/**
 * CI smoke of `npm run bench:search`: 2,000 fact versions, 80 % about one person, embeddings off,
 * through a real service process and its restart. Fails on errors and on searches that are refused
 * or find nothing for the person most facts name (never on timings).
 */
describe('bench:search smoke (2,000 versions, embeddings off)', () => {
  it('ingests, loads the raw baseline, searches both word classes, restarts and searches again', async () => {
    const shape = { memoryId: 'search', versions: 2000, entities: 200, batchSize: 500, seed: 7, focus: 0.8 };
    const figures = await runSearchBench({ name: 'EMBEDDINGS=off', embeddings: 'off' }, shape, 5, () => undefined);
    expect(figures.versions).toBe(2000);
    expect(figures.common).toHaveLength(5);
    expect(figures.rare).toHaveLength(5);
    for (const search of [figures.firstSearch, ...figures.common, ...figures.rare, figures.firstAfterRestart]) expect(search.refused).toBeNull();
    // The focused person is in most facts: every question about them finds items, before and after the restart.
    expect(figures.common.every((s) => s.items > 0)).toBe(true);
    expect(figures.firstSearch.items).toBeGreaterThan(0);
    expect(figures.firstAfterRestart.items).toBeGreaterThan(0);
    expect(figures.ingestSeconds).toBeGreaterThan(0);
    expect(figures.rawSeconds).toBeGreaterThan(0);
    expect(figures.peakServiceRssBytes).toBeGreaterThan(0);
  }, 300_000);
});
