import { type Command, decideBatch, initialState } from '@memotrace/domain';
import { PostgresLogStore } from '@memotrace/log-store';
import { memoryStreamId, toNewRecords } from '@memotrace/memory-log';
import { createPool } from '@memotrace/postgres';
import { createTestDatabase } from '@memotrace/postgres/testing';
import { SERVICE_FROM_SOURCES, type ServiceProcess, startServiceProcess } from './testing/service-process';
import { apiAt } from './testing/test-service';

/**
 * The service in a small heap, beside a memory larger than that heap holds: the bounds that
 * follow the heap (docs/operations.md) refuse that memory with 503s of its own, and the process
 * keeps serving every other memory (writes, reads, search) instead of dying of it.
 *
 * 160 MB of old space hold the service's own ~60 MB and, at about 500 bytes a folded record,
 * not the 300,000 records of the big memory: folded whole, it would exhaust the heap.
 */
const HEAP_MB = 160;
const BIG_RECORDS = 300_000;
const TIMEOUT_MS = 240_000;

/** The big memory's log, decided in process and appended as the log store's own records: a relation, people, then facts. */
async function appendBigMemory(databaseUrl: string, memoryId: string): Promise<void> {
  const pool = createPool(databaseUrl);
  const store = new PostgresLogStore(pool);
  try {
    const state = initialState();
    const people = Array.from({ length: 200 }, (_, i) => `p${i}`);
    const setup: Command[] = [
      { op: 'DEFINE_RELATION', commandId: 'rel', rel: 'knows', cardinality: 'many' } as Command,
      ...people.map((id) => ({ op: 'UPSERT_ENTITY', commandId: `e-${id}`, entityId: id, name: `Person ${id}` }) as Command),
    ];
    let revision = -1;
    const append = async (commands: Command[], at: string) => {
      const { records } = decideBatch(memoryId, state, commands, at);
      const expectedRevision = revision < 0 ? ('no_stream' as const) : revision;
      revision = (await store.append(memoryStreamId(memoryId), toNewRecords(memoryId, records), { expectedRevision })).nextExpectedRevision;
    };
    await append(setup, '2024-01-01T00:00:00.000Z');
    for (let n = setup.length, batch = 0; n < BIG_RECORDS; batch++) {
      const size = Math.min(5000, BIG_RECORDS - n);
      const facts = Array.from({ length: size }, (_, i) => {
        const k = n + i;
        return {
          op: 'UPSERT_EDGE',
          commandId: `f${k}`,
          factId: `f${k}`,
          src: people[k % 200],
          rel: 'knows',
          dst: people[(k * 7 + 1) % 200],
          validFrom: '2023-01-01T00:00:00.000Z',
          source: 'small-heap test',
        } as Command;
      });
      await append(facts, new Date(Date.UTC(2024, 0, 2) + batch * 60_000).toISOString());
      n += size;
    }
  } finally {
    await store.close();
    await pool.end();
  }
}

describe(`the service in a ${HEAP_MB} MB heap beside a memory larger than it holds`, () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let running: ServiceProcess | undefined;
  beforeAll(async () => {
    database = await createTestDatabase();
  }, TIMEOUT_MS);
  afterAll(async () => {
    if (running && running.child.exitCode === null) {
      running.child.kill('SIGTERM');
      await running.exited;
    }
    await database.drop();
  }, TIMEOUT_MS);

  it(
    'refuses the big memory with 503 MEMORY_TOO_LARGE and SEARCH_TOO_LARGE and serves every other one',
    async () => {
      running = await startServiceProcess({
        args: [`--max-old-space-size=${HEAP_MB}`, ...SERVICE_FROM_SOURCES],
        // The bounds follow the heap: none is set here.
        env: { DATABASE_URL: database.url, LOG_LEVEL: 'warn', EMBEDDINGS: 'off', STATE_CACHE_RECORDS: undefined, SEARCH_CACHE_VERSIONS: undefined },
      });
      const api = apiAt(running.url);
      const alice = [
        { op: 'UPSERT_ENTITY', entityId: 'alice', name: 'Alice Moreau' },
        { op: 'UPSERT_ENTITY', entityId: 'acme', name: 'Acme' },
        { op: 'UPSERT_EDGE', factId: 'alice-acme', src: 'alice', rel: 'works_at', dst: 'acme', validFrom: '2024-05-06T00:00:00Z' },
      ];
      const small = await api.commands('small', alice);
      expect(small.status).toBe(200);
      const searched = await api.post(`/v1/memories/small/search?minPosition=${small.body.position}`, { query: 'where does Alice work' });
      expect(searched.status).toBe(200);

      await appendBigMemory(database.url, 'big');
      const refused = await api.commands('big', [{ op: 'UPSERT_ENTITY', entityId: 'late', name: 'Late Comer' }]);
      expect(refused).toMatchObject({ status: 503, body: { error: { code: 'MEMORY_TOO_LARGE' } } });
      expect(refused.body.error.message).toMatch(/STATE_CACHE_RECORDS=\d+/);
      // Asked again: refused at once, not folded again.
      const started = Date.now();
      expect((await api.commands('big', [{ op: 'UPSERT_ENTITY', entityId: 'late', name: 'Late Comer' }])).status).toBe(503);
      expect(Date.now() - started).toBeLessThan(5_000);

      // The search corpus of the big memory passes its own bound once the projector has written enough of it.
      let search: { status: number; body: any } = { status: 0, body: null };
      for (const deadline = Date.now() + 120_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 2_000))) {
        search = await api.post('/v1/memories/big/search', { query: 'who does Person p1 know' });
        if (search.status === 503) break;
        expect(search.status).toBe(200);
      }
      expect(search).toMatchObject({ status: 503, body: { error: { code: 'SEARCH_TOO_LARGE' } } });

      const more = await api.commands('small', [{ op: 'UPSERT_ENTITY', entityId: 'bob', name: 'Bob Stone' }]);
      expect(more.status).toBe(200);
      const facts = await api.get('/v1/memories/small/facts?src=alice');
      expect(facts.status).toBe(200);
      expect(facts.body.facts).toHaveLength(1);
      const again = await api.post('/v1/memories/small/search', { query: 'where does Alice work' });
      expect(again.status).toBe(200);
      expect(again.body.items.length).toBeGreaterThan(0);
      expect(running.child.exitCode).toBeNull();
      expect(running.output()).not.toMatch(/heap out of memory/i);
    },
    TIMEOUT_MS,
  );
});
