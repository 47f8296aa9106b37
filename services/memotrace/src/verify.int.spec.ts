import { verifyResponse } from '@memotrace/contracts';
import { historyArb, runHistory } from '@memotrace/domain/testing/histories';
import { PostgresLogStore } from '@memotrace/log-store';
import { memoryStreamId, toNewRecords } from '@memotrace/memory-log';
import { createPool } from '@memotrace/postgres';
import { MAX_BOUND_CUTS } from '@memotrace/query-service';
import fc from 'fast-check';
import type { Pool } from 'pg';
import { type TestService, startTestService } from './testing/test-service';

/** GET /v1/memories/{id}/verify: read models vs exact replay, every difference reported (issue 4). */
describe('verify', () => {
  let t: TestService;
  let pool: Pool;
  let store: PostgresLogStore;
  beforeAll(async () => {
    t = await startTestService();
    pool = createPool(t.service.databaseUrl);
    store = new PostgresLogStore(pool);
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
      await store.append(memoryStreamId(memoryId), toNewRecords(memoryId, run.log), { expectedRevision: 'no_stream' });
      facts += run.state.facts.size;
      const times = [...new Set(run.log.map((e) => e.meta.recordedAt))];
      for (const recordedAt of [undefined, times[0], times[Math.floor(times.length / 2)]]) {
        const { status, body } = await t.get(`/v1/memories/${memoryId}/verify${recordedAt ? `?recordedAt=${recordedAt}` : ''}`);
        expect(status).toBe(200);
        expect(body).toMatchObject({ memoryId, consistent: true, differences: [] });
        if (recordedAt) expect(body.recordedAt).toBe(recordedAt);
        expect(body.compared).toBeGreaterThan(0);
        expect(body.validAts[0]).toBe('*');
        expect(body.validAts).toHaveLength(1 + Math.min(body.validityBounds, MAX_BOUND_CUTS));
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

  it('cuts at an even spread of the bounds of a memory that has more than it asks, and still finds a changed validity', async () => {
    const memoryId = 'verify-many-bounds';
    const day = (i: number) => new Date(Date.UTC(2020, 0, 1) + i * 86_400_000).toISOString();
    const facts = Array.from({ length: 150 }, (_, i) => ({
      op: 'UPSERT_EDGE',
      factId: `f${i}`,
      src: 'a',
      rel: 'saw',
      dst: { literal: i },
      validFrom: day(i),
    }));
    const write = await t.commands(memoryId, [{ op: 'UPSERT_ENTITY', entityId: 'a', name: 'A' }, ...facts]);
    expect(write.status).toBe(200);
    const clean = await t.get(`/v1/memories/${memoryId}/verify`);
    expect(clean.body).toMatchObject({ consistent: true, validityBounds: 150 });
    expect(clean.body.validAts).toHaveLength(1 + MAX_BOUND_CUTS);
    expect(clean.body.validAts.slice(0, 2)).toEqual(['*', day(0)]);
    expect(clean.body.validAts.at(-1)).toBe(day(149));

    // f1's bounds are not among the cuts asked (day 1 is skipped by the spread), its versions are compared at '*' and in its history.
    expect(clean.body.validAts).not.toContain(day(1));
    await pool.query(`UPDATE rm_fact_versions SET valid_to = $2 WHERE memory_id = $1 AND fact_id = 'f1'`, [memoryId, day(1.5)]);
    const { body } = await t.get(`/v1/memories/${memoryId}/verify`);
    expect(body.consistent).toBe(false);
    expect(body.differences.map((d: { query: string }) => d.query)).toEqual(
      expect.arrayContaining([expect.stringMatching(/^facts\(validAt=\*/), expect.stringMatching(/^history\(f1,/)]),
    );
    // Only the fact that differs, not the memory's 150 on each side.
    const star = body.differences.find((d: { query: string }) => d.query.startsWith('facts(validAt=*'));
    expect(star.projection).toEqual([expect.objectContaining({ factId: 'f1', validTo: day(1.5) })]);
    expect(star.replay).toEqual([expect.objectContaining({ factId: 'f1', validTo: null })]);
  });
});
