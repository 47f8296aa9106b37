import { verifyResponse } from '@memotrace/contracts';
import { historyArb, runHistory } from '@memotrace/domain/testing/histories';
import { PostgresEventStore } from '@memotrace/event-store';
import { memoryStreamId, toNewEvents } from '@memotrace/memory-log';
import { createPool } from '@memotrace/postgres';
import fc from 'fast-check';
import type { Pool } from 'pg';
import { type TestService, startTestService } from './testing/test-service';

/** GET /v1/memories/{id}/verify: read models vs exact replay, every difference reported (issue 4). */
describe('verify', () => {
  let t: TestService;
  let pool: Pool;
  let store: PostgresEventStore;
  beforeAll(async () => {
    t = await startTestService();
    pool = createPool(t.service.databaseUrl);
    store = new PostgresEventStore(pool);
  });
  afterAll(async () => {
    await store.close();
    await pool.end();
    await t.stop();
  });

  it('finds the read models consistent after random writes, at now and at earlier record times', async () => {
    const histories = fc.sample(historyArb, { numRuns: 12, seed: 4 });
    let facts = 0;
    for (const [i, batches] of histories.entries()) {
      const memoryId = `verify-random-${i}`;
      const run = runHistory(batches, { memoryId });
      if (run.log.length === 0) continue;
      await store.append(memoryStreamId(memoryId), toNewEvents(memoryId, run.log), { expectedRevision: 'no_stream' });
      facts += run.state.facts.size;
      const times = [...new Set(run.log.map((e) => e.meta.recordedAt))];
      for (const recordedAt of [undefined, times[0], times[Math.floor(times.length / 2)]]) {
        const { status, body } = await t.get(`/v1/memories/${memoryId}/verify${recordedAt ? `?recordedAt=${recordedAt}` : ''}`);
        expect(status).toBe(200);
        expect(body).toMatchObject({ memoryId, consistent: true, differences: [] });
        if (recordedAt) expect(body.recordedAt).toBe(recordedAt);
        expect(body.compared).toBeGreaterThan(0);
      }
    }
    expect(facts).toBeGreaterThan(0); // not vacuous
  });

  it('reports a deliberately corrupted read-model row', async () => {
    const at = '2024-05-06T09:00:00.000Z';
    const write = await t.commands('verify-corrupt', [
      { op: 'UPSERT_ENTITY', entityId: 'alice', name: 'Alice', recordedAt: at },
      { op: 'UPSERT_ENTITY', entityId: 'acme', name: 'Acme', recordedAt: at },
      { op: 'UPSERT_EDGE', factId: 'alice-acme', src: 'alice', rel: 'works_at', dst: 'acme', validFrom: '2024-05-06T00:00:00Z', recordedAt: at },
    ]);
    expect(write.status).toBe(200);
    const before = await t.get(`/v1/memories/verify-corrupt/verify?minPosition=${write.body.position}`);
    expect(before.status).toBe(400); // strict query: only recordedAt
    const clean = await t.get('/v1/memories/verify-corrupt/verify');
    expect(clean.body).toMatchObject({ consistent: true, differences: [] });

    await pool.query(`UPDATE rm_fact_versions SET dst_entity = 'beta' WHERE memory_id = 'verify-corrupt' AND fact_id = 'alice-acme'`);
    const { status, body } = await t.get('/v1/memories/verify-corrupt/verify');
    expect(status).toBe(200);
    expect(body.consistent).toBe(false);
    expect(verifyResponse.parse(body)).toEqual(body); // the documented (OpenAPI) shape
    const queries = body.differences.map((d: { query: string }) => d.query);
    expect(queries).toEqual(expect.arrayContaining([expect.stringMatching(/^facts\(validAt=\*/), expect.stringMatching(/^history\(alice-acme/)]));
    const facts = body.differences.find((d: { query: string }) => d.query.startsWith('facts(validAt=*'));
    expect(facts.projection[0].dst).toBe('beta');
    expect(facts.replay[0].dst).toBe('acme');
  });
});
