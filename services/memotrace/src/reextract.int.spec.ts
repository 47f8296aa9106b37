import { deriveEntityId, deriveFactId } from '@memotrace/domain';
import type { Derived, ExtractionInput, Extractor } from '@memotrace/extraction';
import { type TestDatabase, createTestDatabase } from '@memotrace/postgres/testing';
import { readConfig } from '@memotrace/runtime';
import pino from 'pino';
import { type RunningService, startMemoTrace } from './app';
import { type Api, apiAt } from './testing/test-service';

/**
 * `POST /v1/memories/{memoryId}/reextract`: the recorded turns are derived from again by the service's
 * current extractor, through async jobs. The extractors are written for the test, two versions of one:
 * 1.0.0 states where a speaker lives when a turn says "I live in X", and keeps a copy of the turn (a
 * `told` fact holding its words, and an event resting on it), as extractors before statements did; 1.1.0
 * also reads "I moved to X", is surer of what it finds and keeps no copies. The service runs 1.0.0, then
 * is restarted on the same database with 1.1.0.
 */
function phrases(version: '1.0.0' | '1.1.0'): Extractor & Held {
  const patterns = version === '1.0.0' ? [/I live in (\w+)/] : [/I live in (\w+)/, /I moved to (\w+)/];
  return {
    name: 'phrases',
    version,
    calls: 0,
    async extract({ memoryId, turns }: ExtractionInput): Promise<Derived[]> {
      this.calls++;
      await this.held;
      return turns.flatMap((turn): Derived[] => {
        const place = patterns.map((p) => p.exec(turn.text)?.[1]).find((p) => p !== undefined);
        if (place === undefined) return [];
        const src = deriveEntityId(memoryId, turn.speaker);
        const copy = { literal: turn.text, datatype: 'string' as const };
        const told: Derived[] = [
          { command: { op: 'UPSERT_EDGE', src, rel: 'told', dst: copy, validFrom: turn.at }, confidence: 0.8, turns: [turn.mentionId] },
          {
            command: {
              op: 'UPSERT_EVENT',
              summary: `${turn.speaker}: ${turn.text}`,
              includesFacts: [deriveFactId(memoryId, src, 'told', copy)],
              timeSpan: { from: turn.at },
            },
            confidence: 0.8,
            turns: [turn.mentionId],
          },
        ];
        return [
          { command: { op: 'UPSERT_ENTITY', name: turn.speaker, types: ['person'] }, confidence: 0.9, turns: [turn.mentionId] },
          {
            command: { op: 'UPSERT_EDGE', src, rel: 'lives_in', dst: { literal: place, datatype: 'string' }, validFrom: turn.at },
            confidence: version === '1.0.0' ? 0.8 : 0.95,
            turns: [turn.mentionId],
            why: 'where the speaker lives',
          },
          ...(version === '1.0.0' ? told : []),
        ];
      });
    },
  };
}

/** While `held` is set, an extraction waits for it. */
interface Held {
  calls: number;
  held?: Promise<void>;
}

const LIVES = '2024-05-01T09:00:00Z';
const MOVED = '2024-05-11T18:30:00Z';
const V1 = 'extractor:phrases@1.0.0';
const V2 = 'extractor:phrases@1.1.0';

type Command = { op: string; actor: string; commandId: string };

describe('re-extraction', () => {
  let database: TestDatabase;
  let service: RunningService | undefined;
  let api: Api;
  let extractor: Extractor & Held;
  const start = async (next: Extractor & Held) => {
    extractor = next;
    // Poll 0: jobs run when the route wakes the processor or the test asks (`runDue`), never behind the test's back.
    const config = { ...readConfig({}), databaseUrl: database.url, port: 0, host: '127.0.0.1', extractionGate: 0.5, extractionPollMs: 0 };
    service = await startMemoTrace(config, pino({ level: 'silent' }), { embeddings: null, extractor });
    api = apiAt(service.url);
  };
  beforeAll(async () => {
    database = await createTestDatabase();
    await start(phrases('1.0.0'));
  }, 60_000);
  afterAll(async () => {
    await service?.close();
    await database?.drop();
  });

  const derivedOf = async (mentionId: string) => (await api.get(`/v1/memories/talk/mentions/${mentionId}/derived`)).body;
  const positionOf = async (memoryId: string) =>
    (await api.get('/v1/memories')).body.memories.find((m: { memoryId: string }) => m.memoryId === memoryId)?.position;
  const jobCount = async () => Number((await database.pool.query('SELECT count(*) AS n FROM mt_extraction_jobs')).rows[0].n);
  /** Runs every job queued so far: queued behind a run the route started, so it resolves once that one is over too. */
  const derive = () => service!.extraction.runDue();
  const livesIn = async () => {
    const { body } = await api.get(`/v1/memories/talk/facts?validAt=*&rel=lives_in`);
    return body.facts
      .map((f: { dst: { literal: string }; validFrom: string; validTo: string | null }) => [f.dst.literal, f.validFrom, f.validTo])
      .sort();
  };

  it('derives nothing until asked: turns recorded as plain mentions or through /turns without extraction', async () => {
    const plain = await api.commands('talk', [
      { op: 'DEFINE_RELATION', commandId: 'rel-lives-in', rel: 'lives_in', cardinality: 'one' },
      {
        op: 'RECORD_MENTION',
        commandId: 'mention-1',
        mentionId: 'chat-1:1',
        docId: 'chat-1',
        speaker: 'Alice',
        text: 'I live in Lyon.',
        occurredAt: LIVES,
      },
    ]);
    expect(plain.status).toBe(200);
    const turns = await api.post('/v1/memories/talk/turns', {
      sessionId: 'chat-2',
      extraction: 'off',
      turns: [
        { turnId: 'chat-2:2', speaker: 'Bob', text: 'How is the new flat?', at: '2024-05-11T18:31:00Z' },
        { turnId: 'chat-2:1', speaker: 'Alice', text: 'I moved to Paris last week.', at: MOVED },
      ],
    });
    expect(turns.status).toBe(200);
    expect(await positionOf('talk')).toBe(4);
    expect(await derivedOf('chat-1:1')).toEqual({ mentionId: 'chat-1:1', commands: [], extraction: { status: 'none' } });
  });

  it('queues a job per session with the current extractor; what it derives carries its actor', async () => {
    const { status, body } = await api.post('/v1/memories/talk/reextract', {});
    expect(status).toBe(202);
    expect(body).toEqual({ jobs: 2, turns: 3, extractor: 'phrases@1.0.0' });
    await derive();
    const derived = await derivedOf('chat-1:1');
    expect(derived.extraction).toEqual({ status: 'done', attempts: 1, extractor: 'phrases@1.0.0' });
    expect(derived.commands.map((c: Command) => [c.op, c.actor])).toEqual([
      ['UPSERT_ENTITY', V1],
      ['UPSERT_EDGE', V1],
      ['UPSERT_EDGE', V1],
      ['UPSERT_EVENT', V1],
    ]);
    // 1.0.0 does not read "I moved to": the other session derives nothing.
    expect(await derivedOf('chat-2:1')).toMatchObject({ commands: [], extraction: { status: 'done' } });
    expect(await positionOf('talk')).toBe(8);
    expect(await livesIn()).toEqual([['Lyon', '2024-05-01T09:00:00.000Z', null]]);
  });

  it('derives nothing new when the same extractor version derives again', async () => {
    const before = await derivedOf('chat-1:1');
    const { status, body } = await api.post('/v1/memories/talk/reextract', { sessionId: 'chat-1' });
    expect(status).toBe(202);
    expect(body).toEqual({ jobs: 1, turns: 1, extractor: 'phrases@1.0.0' });
    await derive();
    expect(await positionOf('talk')).toBe(8);
    expect((await derivedOf('chat-1:1')).commands).toEqual(before.commands);
  });

  it('refuses a bad body or an unknown memory, and queues nothing', async () => {
    const jobs = await jobCount();
    for (const body of [{ sessionId: 7 }, { sessionId: 'chat-1', extra: true }, []]) {
      const bad = await api.post('/v1/memories/talk/reextract', body);
      expect(bad.status).toBe(400);
      expect(bad.body.error.code).toBe('INVALID_REQUEST');
    }
    const unknown = await api.post('/v1/memories/nobody/reextract', {});
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('UNKNOWN_MEMORY');
    expect(await jobCount()).toBe(jobs);
    expect(await positionOf('nobody')).toBeUndefined();
  });

  it('with a new extractor version, derives new commands that supersede through the DSL', async () => {
    await service!.close();
    service = undefined;
    await start(phrases('1.1.0'));
    const { status, body } = await api.post('/v1/memories/talk/reextract', {});
    expect(status).toBe(202);
    expect(body).toEqual({ jobs: 2, turns: 3, extractor: 'phrases@1.1.0' });
    await derive();

    // The move to Paris is a new fact of the `one` relation: Lyon's validity ends where Paris's begins. Nothing was deleted.
    expect(await livesIn()).toEqual([
      ['Lyon', '2024-05-01T09:00:00.000Z', '2024-05-11T18:30:00.000Z'],
      ['Paris', '2024-05-11T18:30:00.000Z', null],
    ]);
    const moved = await derivedOf('chat-2:1');
    expect(moved.extraction).toEqual({ status: 'done', attempts: 1, extractor: 'phrases@1.1.0' });
    expect(moved.commands.map((c: Command) => [c.op, c.actor])).toEqual([
      ['UPSERT_ENTITY', V2],
      ['UPSERT_EDGE', V2],
    ]);
    // Both versions' commands, in log order: 1.1.0's own command ids, its surer fact a new version of Lyon's, and the
    // archive of the copy 1.0.0 kept and 1.1.0 does not derive.
    const lived = (await derivedOf('chat-1:1')).commands as Command[];
    expect(lived.map((c) => c.actor)).toEqual([V1, V1, V1, V1, ...lived.slice(4).map(() => V2)]);
    expect(lived.slice(4).map((c) => c.op)).toEqual(expect.arrayContaining(['UPSERT_EDGE', 'ARCHIVE_EDGE']));
    expect(new Set(lived.map((c) => c.commandId)).size).toBe(lived.length);

    // The copy stays in the log (history, audit) but is no longer believed; the event resting on it left the cut with it.
    const copyId = deriveFactId('talk', deriveEntityId('talk', 'Alice'), 'told', { literal: 'I live in Lyon.', datatype: 'string' });
    expect((await api.get('/v1/memories/talk/facts?validAt=*&rel=told')).body.facts).toEqual([]);
    const history = (await api.get(`/v1/memories/talk/facts/${copyId}/history`)).body.versions;
    expect(history).toHaveLength(1);
    expect(history[0].recordedTo).not.toBeNull();
    const audit = (await api.get(`/v1/memories/talk/facts/${copyId}/audit`)).body.events;
    expect(audit.at(-1)).toMatchObject({ type: 'FactArchived', actor: V2 });
    expect((await api.get('/v1/memories/talk/events')).body.events).toEqual([]);
    const copied = (lived as (Command & { recordedAt: string })[]).find((c) => c.op === 'UPSERT_EVENT')!.recordedAt;
    const before = (await api.get(`/v1/memories/talk/events?validAt=${LIVES}&recordedAt=${copied}`)).body.events;
    expect(before.map((e: { summary: string }) => e.summary)).toEqual(['Alice: I live in Lyon.']);

    // Deriving again with 1.1.0: nothing new.
    const position = await positionOf('talk');
    expect((await api.post('/v1/memories/talk/reextract', {})).status).toBe(202);
    await derive();
    expect(await positionOf('talk')).toBe(position);
  });

  it('appends nothing into a memory deleted while its re-extraction runs', async () => {
    const mention = {
      op: 'RECORD_MENTION',
      commandId: 'doomed-1',
      mentionId: 'd:1',
      docId: 'd',
      speaker: 'Carol',
      text: 'I live in Nice.',
      occurredAt: LIVES,
    };
    expect((await api.commands('doomed', [mention])).status).toBe(200);
    let open!: () => void;
    extractor.held = new Promise<void>((resolve) => (open = resolve));
    const calls = extractor.calls;
    expect((await api.post('/v1/memories/doomed/reextract', {})).status).toBe(202);
    // The processor has read the memory and waits for the extractor.
    for (let i = 0; i < 600 && extractor.calls === calls; i++) await new Promise((resolve) => setTimeout(resolve, 25));
    expect(extractor.calls).toBe(calls + 1);
    expect((await fetch(`${api.url}/v1/memories/doomed`, { method: 'DELETE' })).status).toBe(200);
    open();
    delete extractor.held;
    await derive();
    expect(await positionOf('doomed')).toBeUndefined();
    expect((await api.get('/v1/memories/doomed/export')).status).toBe(404);
  });
});
