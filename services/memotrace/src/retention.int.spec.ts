import { CommandHandler, startRetentionSweeps } from '@memotrace/command-service';
import { openDatabase, readConfig } from '@memotrace/runtime';
import pino from 'pino';
import { type TestService, startTestService } from './testing/test-service';

/**
 * A relation's retention (`DEFINE_RELATION … retention`): once it has elapsed, the content of the
 * relation's facts is erased by the path an ERASE takes, with actor `retention`, in every answer;
 * other facts keep theirs, and sweeping again (or from a second process) writes nothing.
 */
const MEMORY = 'retained';
// Record times in the past: a retention of a day has elapsed for them by the service's clock.
const MON = '2024-05-06T00:00:00.000Z';
const TUE = '2024-05-07T00:00:00.000Z';

let svc: TestService;
beforeAll(async () => {
  // No timer: the test sweeps when it wants (and the timer's own path is the same function).
  svc = await startTestService({ retentionSweepMs: 0 });
}, 60_000);
afterAll(async () => {
  await svc?.stop();
});

const facts = async (query = '') => (await svc.get(`/v1/memories/${MEMORY}/facts?validAt=*${query}`)).body.facts;

describe('retention', () => {
  let position: number;

  beforeAll(async () => {
    const written = await svc.commands(MEMORY, [
      { op: 'DEFINE_RELATION', rel: 'lives_in', cardinality: 'one', retention: 'P1D', recordedAt: MON },
      { op: 'UPSERT_ENTITY', entityId: 'alice', name: 'Alice', recordedAt: MON },
      { op: 'UPSERT_ENTITY', entityId: 'acme', name: 'Acme', recordedAt: MON },
      {
        op: 'UPSERT_EDGE',
        factId: 'home',
        src: 'alice',
        rel: 'lives_in',
        dst: { literal: 'Rue Canari 12' },
        source: 'said over coffee',
        recordedAt: MON,
      },
      { op: 'UPSERT_EDGE', factId: 'job', src: 'alice', rel: 'works_at', dst: 'acme', source: 'HR file', recordedAt: MON },
    ]);
    expect(written.status).toBe(200);
    position = written.body.position;
  });

  it('rejects a retention that is not a duration, writing nothing', async () => {
    const bad = await svc.commands(MEMORY, [{ op: 'DEFINE_RELATION', rel: 'lives_in', cardinality: 'one', retention: 'one year' }]);
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toMatch(/retention/);
    expect((await svc.get(`/v1/memories/${MEMORY}/facts/home/audit`)).body.events).toHaveLength(1);
  });

  it('erases the content of the relation’s facts once it has elapsed, recorded with actor retention', async () => {
    expect(await facts(`&minPosition=${position}`)).toEqual(
      expect.arrayContaining([expect.objectContaining({ factId: 'home', dst: { literal: 'Rue Canari 12', datatype: 'string' } })]),
    );
    expect(await svc.service.retention.sweep()).toBe(1);

    const audit = (await svc.get(`/v1/memories/${MEMORY}/facts/home/audit`)).body.events;
    const erasure = audit.at(-1);
    expect(erasure).toMatchObject({ type: 'SubjectErased', actor: 'retention', reason: `retention P1D of relation lives_in elapsed at ${TUE}` });
    const after = (await svc.get(`/v1/memories/${MEMORY}/facts?validAt=*&minPosition=${position + 1}`)).body.facts;
    expect(after.find((f: { factId: string }) => f.factId === 'home')).toMatchObject({ dst: null, source: null, erased: true });
    expect(after.find((f: { factId: string }) => f.factId === 'job')).toMatchObject({ dst: 'acme', source: 'HR file' });
    // Replay folds the same erasure: the cut before it (Monday) has lost the content too.
    for (const consistency of ['projection', 'replay']) {
      const monday = (await svc.get(`/v1/memories/${MEMORY}/facts?validAt=*&recordedAt=${MON}&consistency=${consistency}`)).body.facts;
      expect(monday.find((f: { factId: string }) => f.factId === 'home')).toMatchObject({ dst: null, erased: true });
    }
    const exported = (await svc.get(`/v1/memories/${MEMORY}/export`)).text;
    expect(exported).not.toMatch(/Canari|coffee/);
    expect(exported).toMatch(/HR file/);
  });

  it('writes nothing on the next sweep', async () => {
    const log = async () => (await svc.get(`/v1/memories/${MEMORY}/export`)).text.split('\n').filter(Boolean).length;
    const length = await log();
    expect(await svc.service.retention.sweep()).toBe(0);
    expect(await log()).toBe(length);
  });
});

describe('retention sweeps from two processes', () => {
  it('erase a newly due fact once', async () => {
    const written = await svc.commands('raced', [
      { op: 'DEFINE_RELATION', rel: 'phone', cardinality: 'one', retention: 'PT1H', recordedAt: MON },
      { op: 'UPSERT_ENTITY', entityId: 'bob', name: 'Bob', recordedAt: MON },
      { op: 'UPSERT_EDGE', factId: 'tel', src: 'bob', rel: 'phone', dst: { literal: '+1 555 0100' }, recordedAt: MON },
    ]);
    expect(written.status).toBe(200);
    // A second writer as a command service beside this one would be: its own connections, key cache, handler and state.
    const database = await openDatabase({ ...readConfig({}), databaseUrl: svc.service.databaseUrl }, () => undefined);
    const other = new CommandHandler(database.store, { now: () => new Date().toISOString() }, database.keyStore);
    const otherSweeps = startRetentionSweeps({ store: database.store, handler: other, intervalMs: 0, logger: pino({ level: 'silent' }) });
    try {
      const [mine, theirs] = await Promise.all([svc.service.retention.sweep(), otherSweeps.sweep()]);
      expect(mine + theirs).toBe(1);
    } finally {
      await otherSweeps.stop();
      await database.close();
    }
    const audit = (await svc.get('/v1/memories/raced/facts/tel/audit')).body.events;
    expect(audit.filter((e: { type: string }) => e.type === 'SubjectErased')).toHaveLength(1);
  });
});
