import { deriveEntityId } from '@memotrace/domain';
import type { Derived, ExtractionInput, Extractor } from '@memotrace/extraction';
import type { ExtractionJob } from '@memotrace/runtime';
import pg from 'pg';
import { type TestService, startTestService } from './testing/test-service';

/**
 * `"extraction": "async"` (SPEC §5.1): the turns are appended at once, a job derives from them later
 * (each derived command recorded when it is derived), a failed extraction is visible and retried, and
 * neither a resend, a re-run, an import nor a deleted memory doubles or resurrects anything. The
 * extractor is written for the test: it states where a speaker lives when a turn says "I live in X",
 * and the test decides when it answers and whether it fails.
 */
class TestExtractor implements Extractor {
  readonly name = 'phrases';
  readonly version = '1.0.0';
  /** While set, an extraction waits for it to be released. */
  private gate: { promise: Promise<void>; open: () => void } | undefined;
  /** While true, an extraction throws. */
  broken = false;
  calls = 0;

  hold(): void {
    let open!: () => void;
    this.gate = { promise: new Promise<void>((resolve) => (open = resolve)), open };
  }

  release(): void {
    this.gate?.open();
    this.gate = undefined;
  }

  async extract({ memoryId, turns }: ExtractionInput): Promise<Derived[]> {
    this.calls++;
    await this.gate?.promise;
    // A failure that quotes what it was given, as an endpoint's error body or a model's refusal may.
    if (this.broken) throw new Error(`model unavailable while reading "${turns[0]?.text}"`);
    return turns.flatMap((turn): Derived[] => {
      const place = /I live in (\w+)/.exec(turn.text)?.[1];
      if (place === undefined) return [];
      const src = deriveEntityId(memoryId, turn.speaker);
      return [
        { command: { op: 'UPSERT_ENTITY', name: turn.speaker, types: ['person'] }, confidence: 0.9, turns: [turn.mentionId] },
        {
          command: { op: 'UPSERT_EDGE', src, rel: 'lives_in', dst: { literal: place, datatype: 'string' }, validFrom: turn.at },
          confidence: 0.8,
          turns: [turn.mentionId],
          why: 'first person "I live in"',
        },
      ];
    });
  }
}

const RECORDED = '2024-05-12T00:00:00.000Z';
const dialog = (sessionId: string) => ({
  sessionId,
  recordedAt: RECORDED,
  extraction: 'async',
  turns: [
    { turnId: `${sessionId}:1`, speaker: 'Alice', text: 'I live in Lyon these days.', at: '2024-05-11T18:30:00Z' },
    { turnId: `${sessionId}:2`, speaker: 'Bob', text: 'Nice, how is it?', at: '2024-05-11T18:31:00Z' },
  ],
});

/** Polls `read` until `done` holds (a bounded wait, no timing asserted). */
async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> {
  for (let i = 0; i < 600; i++) {
    const value = await read();
    if (done(value)) return value;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`gave up waiting for ${what}`);
}

describe('turns with async extraction', () => {
  const extractor = new TestExtractor();
  let svc: TestService;
  let db: pg.Pool;
  beforeAll(async () => {
    svc = await startTestService({ extractionGate: 0.5, extractionPollMs: 20, extractionRetryMs: 20 }, { extractor });
    db = new pg.Pool({ connectionString: svc.service.databaseUrl, max: 2 });
  }, 60_000);
  afterAll(async () => {
    await db?.end();
    await svc?.stop();
  });

  const derivedOf = async (memoryId: string, mentionId: string) => (await svc.get(`/v1/memories/${memoryId}/mentions/${mentionId}/derived`)).body;
  const jobsOf = async (memoryId: string) =>
    (await db.query('SELECT id, status, attempts FROM mt_extraction_jobs WHERE memory_id = $1 ORDER BY id', [memoryId])).rows;
  const positionOf = async (memoryId: string) =>
    (await svc.get('/v1/memories')).body.memories.find((m: { memoryId: string }) => m.memoryId === memoryId)?.position;

  it('answers at once with the turns recorded; the derived commands follow, recorded when derived', async () => {
    extractor.hold();
    const { status, body } = await svc.post('/v1/memories/later/turns', dialog('s1'));
    expect(status).toBe(200);
    expect(body).toMatchObject({ position: 2, derived: [] });
    expect(body.results.map((r: { status: string; recordedAt: string }) => [r.status, r.recordedAt])).toEqual([
      ['applied', RECORDED],
      ['applied', RECORDED],
    ]);
    // The extractor has not answered: the turn is recorded, nothing derived yet.
    expect(await derivedOf('later', 's1:1')).toEqual({
      mentionId: 's1:1',
      commands: [],
      extraction: { status: 'pending', attempts: 0, extractor: 'phrases@1.0.0' },
    });
    extractor.release();
    const done = await until(
      () => derivedOf('later', 's1:1'),
      (d) => d.extraction.status === 'done',
      'the job to be done',
    );
    expect(done.extraction).toEqual({ status: 'done', attempts: 1, extractor: 'phrases@1.0.0' });
    expect(done.commands.map((c: { op: string; actor: string; derivedFrom: string[] }) => [c.op, c.actor, c.derivedFrom])).toEqual([
      ['UPSERT_ENTITY', 'extractor:phrases@1.0.0', ['s1:1']],
      ['UPSERT_EDGE', 'extractor:phrases@1.0.0', ['s1:1']],
    ]);
    // Each recorded when it was derived: after the turns' record time (in the past), by the server's clock.
    expect(done.commands.every((c: { recordedAt: string }) => c.recordedAt > RECORDED)).toBe(true);
    // The job names both turns; the second derived nothing.
    expect(await derivedOf('later', 's1:2')).toMatchObject({ commands: [], extraction: { status: 'done' } });
    expect(await positionOf('later')).toBe(4);
  });

  it('creates no job for a resent turn, and derives nothing new from it', async () => {
    const before = await jobsOf('later');
    expect(before).toHaveLength(1);
    const { body } = await svc.post('/v1/memories/later/turns', dialog('s1'));
    expect(body.results.map((r: { status: string }) => r.status)).toEqual(['duplicate', 'duplicate']);
    expect(body.derived).toEqual([]);
    expect(await jobsOf('later')).toEqual(before);
    // Whatever the processor runs now, it derives nothing for this memory.
    await svc.service.extraction.runDue();
    expect(await positionOf('later')).toBe(4);
  });

  it('runs a job again (a crash after its append, before its done) without doubling anything', async () => {
    const [row] = await jobsOf('later');
    const { rows } = await db.query('SELECT * FROM mt_extraction_jobs WHERE id = $1', [row.id]);
    const job: ExtractionJob = {
      id: Number(rows[0].id),
      memoryId: rows[0].memory_id,
      sessionId: rows[0].session_id,
      mentionIds: rows[0].mention_ids,
      turnCommandIds: rows[0].turn_command_ids,
      extractor: rows[0].extractor,
      attempts: 0,
      createdAt: rows[0].created_at,
    };
    const commands = (await derivedOf('later', 's1:1')).commands;
    const calls = extractor.calls;
    expect(await svc.service.extraction.run(job)).toBe('done');
    expect(await svc.service.extraction.run(job)).toBe('done');
    expect(extractor.calls).toBe(calls + 2);
    expect(await positionOf('later')).toBe(4);
    expect((await derivedOf('later', 's1:1')).commands).toEqual(commands);
  });

  it('keeps the turns of a failed extraction, shows the failure, and derives once the extractor is back', async () => {
    extractor.broken = true;
    const { status, body } = await svc.post('/v1/memories/flaky/turns', dialog('s2'));
    expect(status).toBe(200);
    expect(body.position).toBe(2);
    const failed = await until(
      () => derivedOf('flaky', 's2:1'),
      (d) => d.extraction.status === 'failed',
      'the job to fail',
    );
    expect(failed.commands).toEqual([]);
    // The job keeps what failed, never what the failure quoted: no erasure reaches the job table.
    expect(failed.extraction).toMatchObject({ status: 'failed', extractor: 'phrases@1.0.0', error: 'extractor phrases@1.0.0 failed (Error)' });
    const stored = await db.query("SELECT last_error FROM mt_extraction_jobs WHERE memory_id = 'flaky'");
    expect(stored.rows.map((r) => r.last_error)).toEqual(['extractor phrases@1.0.0 failed (Error)']);
    expect(failed.extraction.attempts).toBeGreaterThanOrEqual(1);
    // The turns stay recorded.
    expect((await svc.get('/v1/memories/flaky/mentions/s2:1')).status).toBe(200);
    const metrics = (await svc.get('/metrics')).text;
    expect(metrics).toMatch(/^memotrace_extraction_jobs_total\{outcome="failed"\} [1-9]/m);
    expect(metrics).toMatch(/^memotrace_extraction_jobs\{status="failed"\} 1$/m);

    extractor.broken = false;
    const done = await until(
      () => derivedOf('flaky', 's2:1'),
      (d) => d.extraction.status === 'done',
      'the retry to derive',
    );
    expect(done.extraction.attempts).toBeGreaterThanOrEqual(2);
    expect(done.commands.map((c: { op: string }) => c.op)).toEqual(['UPSERT_ENTITY', 'UPSERT_EDGE']);
    const after = (await svc.get('/metrics')).text;
    expect(after).toMatch(/^memotrace_extraction_jobs\{status="failed"\} 0$/m);
    expect(after).toMatch(/^memotrace_extraction_jobs_total\{outcome="done"\} [1-9]/m);
  });

  it('never runs an extractor for an imported log: no job, the same derived commands', async () => {
    const calls = extractor.calls;
    const exported = (await svc.get('/v1/memories/later/export')).text;
    const imported = await svc.post('/v1/memories/later-copy/import', exported, 'application/x-ndjson');
    expect(imported.status).toBe(200);
    expect(await jobsOf('later-copy')).toEqual([]);
    const copy = await derivedOf('later-copy', 's1:1');
    expect(copy).toEqual({ ...(await derivedOf('later', 's1:1')), extraction: { status: 'none' } });
    await svc.service.extraction.runDue();
    expect(extractor.calls).toBe(calls);
  });

  it("deletes a memory's jobs with it; a job under way then appends nothing", async () => {
    extractor.hold();
    const calls = extractor.calls;
    expect((await svc.post('/v1/memories/doomed/turns', dialog('s3'))).status).toBe(200);
    expect(await jobsOf('doomed')).toHaveLength(1);
    // The processor has read the memory and waits for the extractor.
    await until(
      async () => extractor.calls,
      (n) => n > calls,
      'the extraction to start',
    );
    const deleted = await fetch(`${svc.url}/v1/memories/doomed`, { method: 'DELETE' });
    expect(deleted.status).toBe(200);
    expect(await jobsOf('doomed')).toEqual([]);
    extractor.release();
    // Queued behind the run under way: resolves once that one is over.
    await svc.service.extraction.runDue();
    expect((await svc.get('/v1/memories/doomed/export')).status).toBe(404);
    expect(await positionOf('doomed')).toBeUndefined();
    expect(await jobsOf('doomed')).toEqual([]);
  });
});
