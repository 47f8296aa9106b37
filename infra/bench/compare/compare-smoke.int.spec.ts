import pg from 'pg';
import { startServer } from '../scale/server';
import { compareCuts } from './cuts';
import { ingest } from './ingest';
import { RAW_TABLE, loadRawBaseline } from './raw-baseline';
import { type CompareOptions, EMBEDDINGS_OFF, runConfig } from './run-config';
import { emptyWorkloadSample } from './workload';

/**
 * CI smoke of `npm run bench:compare`: 2,000 fact versions, embeddings off, through a
 * real service process, then the raw SQL baseline in its database. Fails on errors and
 * on answers that differ (never on timings); the second test shows the comparison does
 * catch a raw table that lost versions.
 */
const options: CompareOptions = {
  versions: 2000,
  entities: 200,
  batchSize: 500,
  warmupCuts: 5,
  cuts: 30,
  searches: 5,
  seed: 7,
  sustained: null,
  log: () => undefined,
};

describe('bench:compare smoke (2,000 versions, embeddings off)', () => {
  it('runs the whole configuration and the service answers every cut as the raw SQL does', async () => {
    const figures = await runConfig(EMBEDDINGS_OFF, options);
    expect(figures.versions).toBe(2000);
    expect(figures.raw.rows).toBe(2000);
    expect(figures.cuts.mismatches).toEqual([]);
    expect(figures.cuts.compared).toBe(35);
    // Empty answers on both sides would agree whatever the service did: most must hold facts.
    expect(figures.cuts.nonEmpty).toBeGreaterThan(20);
    expect(figures.cuts.service).toHaveLength(30);
    expect(figures.cuts.raw).toHaveLength(30);
    expect(figures.searches).toHaveLength(5);
    expect(figures.firstSearchAfterRestart.items).toBeGreaterThan(0);
  }, 300_000);

  it('reports mismatches when the raw table lacks versions the service has', async () => {
    const server = await startServer(process.env, { embeddings: 'off' });
    try {
      const sample = emptyWorkloadSample();
      const shape = { memoryId: 'compare', versions: 2000, entities: 200, batchSize: 500, seed: 7 };
      await ingest(
        server.url,
        shape,
        sample,
        () => ({ service: 0, postgres: 0, other: 0 }),
        () => undefined,
      );
      await loadRawBaseline(server.databaseUrl, shape.memoryId, 500);
      const client = new pg.Client({ connectionString: server.databaseUrl });
      await client.connect();
      try {
        // Every other open version of the raw table is gone.
        await client.query(`DELETE FROM ${RAW_TABLE} WHERE upper_inf(recorded) AND version_no % 2 = 1`);
      } finally {
        await client.end();
      }
      const cuts = await compareCuts(server.url, server.databaseUrl, shape.memoryId, sample, { warmup: 0, measured: 30, seed: 8 });
      expect(cuts.mismatches.length).toBeGreaterThan(0);
    } finally {
      await server.stop();
    }
  }, 300_000);
});
