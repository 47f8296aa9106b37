import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { rebuildStatus } from '@memotrace/contracts';
import { createPool } from '@memotrace/postgres';
import { type TestService, startTestService } from './testing/test-service';

/** POST/GET /v1/admin/rebuild and `npm run rebuild` (issue 4), on the all-in-one service. */
const MON = '2024-05-06T09:00:00.000Z';
const THU = '2024-05-09T10:00:00.000Z';
const ROOT = resolve(__dirname, '../../..');

describe('admin rebuild', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService();
    expect(
      (
        await t.commands('rb', [
          { op: 'UPSERT_ENTITY', entityId: 'alice', name: 'Alice', recordedAt: MON },
          { op: 'UPSERT_ENTITY', entityId: 'acme', name: 'Acme', recordedAt: MON },
          { op: 'UPSERT_ENTITY', entityId: 'beta', name: 'Beta', recordedAt: MON },
          { op: 'DEFINE_RELATION', rel: 'works_at', cardinality: 'one', recordedAt: MON },
          { op: 'UPSERT_EDGE', factId: 'alice-acme', src: 'alice', rel: 'works_at', dst: 'acme', validFrom: '2024-05-06T00:00:00Z', recordedAt: MON },
        ])
      ).status,
    ).toBe(200);
    expect(
      (
        await t.commands('rb', [
          { op: 'UPSERT_EDGE', factId: 'alice-beta', src: 'alice', rel: 'works_at', dst: 'beta', validFrom: '2024-05-08T00:00:00Z', recordedAt: THU },
        ])
      ).status,
    ).toBe(200);
  });
  afterAll(() => t.stop());

  const finished = async () => {
    for (let i = 0; i < 200; i++) {
      const { body } = await t.get('/v1/admin/rebuild');
      if (body.state !== 'running') return body;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error('rebuild did not finish');
  };

  it('rebuilds to the head, switches, and the service keeps answering and projecting', async () => {
    expect((await t.get('/v1/admin/rebuild')).body.state).toBe('idle');
    const started = await t.post('/v1/admin/rebuild', {});
    expect(started.status).toBe(202);
    expect(started.body.state).toBe('running');
    const status = await finished();
    expect(rebuildStatus.parse(started.body)).toEqual(started.body); // the documented (OpenAPI) shape
    expect(rebuildStatus.parse(status)).toEqual(status);
    expect(status).toMatchObject({ state: 'done', error: null, to: null, result: { mode: 'switched' }, progress: { phase: 'done' } });
    expect(status.progress.done).toBe(status.progress.total);

    const write = await t.commands('rb', [{ op: 'UPSERT_ENTITY', entityId: 'carol', name: 'Carol' }]);
    expect(write.status).toBe(200);
    const carol = await t.get(`/v1/memories/rb/entities/carol`);
    expect(carol.status).toBe(200);
    const verify = await t.get('/v1/memories/rb/verify');
    expect(verify.body).toMatchObject({ consistent: true, differences: [] });
  });

  it('rebuilds to T into a snapshot schema that is not switched in', async () => {
    const started = await t.post('/v1/admin/rebuild', { to: '2024-05-07T00:00:00Z' });
    expect(started.status).toBe(202);
    const status = await finished();
    expect(status).toMatchObject({ state: 'done', error: null, to: '2024-05-07T00:00:00.000Z', result: { mode: 'snapshot' } });
    expect(rebuildStatus.parse(status)).toEqual(status);
    const pool = createPool(t.service.databaseUrl);
    try {
      const { rows } = await pool.query(`SELECT count(*)::int AS n FROM ${status.result.schema}.rm_fact_versions`);
      expect(rows[0].n).toBe(1); // only the Monday version of alice-acme
    } finally {
      await pool.end();
    }
    const live = await t.get('/v1/memories/rb/facts?validAt=*');
    expect(live.body.facts.map((f: { factId: string }) => f.factId)).toEqual(['alice-acme', 'alice-beta']);
  });

  it('rejects a bad record time', async () => {
    expect((await t.post('/v1/admin/rebuild', { to: 'yesterday' })).status).toBe(400);
  });

  it('npm run rebuild prints progress and the result', async () => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'services/projector/src/rebuild-cli.ts', '--projection', 'read-models', '--to', '2024-05-10T00:00:00Z'],
      {
        cwd: ROOT,
        env: { ...process.env, DATABASE_URL: t.service.databaseUrl, LOG_LEVEL: 'warn' },
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise((done) => child.on('exit', done));
    expect({ code, stderr }).toMatchObject({ code: 0 });
    expect(stderr).toMatch(/building rm_snapshot_\d+: \d+\/\d+ events \(\d+%\), \d+ events\/s, ETA/);
    expect(stderr).toMatch(/done rm_snapshot_\d+: (\d+)\/\1 events \(100%\)/);
    expect(JSON.parse(stdout)).toMatchObject({ mode: 'snapshot', applied: 7 });
  }, 60_000);
});
