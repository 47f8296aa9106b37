import { type Command, type Cut, type MemoryQueries, type ValidAt, decideBatch, initialState } from '@memotrace/domain';
import { RECORD_TIMES, type Step, VALID_TIMES, historyArb, runHistory } from '@memotrace/domain/testing/histories';
import type { PostgresLogStore } from '@memotrace/log-store';
import { memoryStreamId, toNewRecords } from '@memotrace/memory-log';
import { createPool } from '@memotrace/postgres';
import { PostgresMemoryQueries, PostgresSearchFeed } from '@memotrace/read-models';
import { type Projector } from '@memotrace/projection';
import fc from 'fast-check';
import { SearchCorpora } from './corpora';
import { referenceCut } from './reference-cut';
import { searchMemory } from './search';
import { type ProjectedLog, startProjectedLog } from '../testing/projected-log';

/**
 * The corpus fed by the read models (PostgresSearchFeed, deltas since the last record
 * time seen) against the reference read through the read models' time-cut queries:
 * random histories are appended batch by batch, and after each batch searches at
 * random cuts must answer the same, byte for byte; at the end, at every cut.
 */
const minusMs = (instant: string) => new Date(Date.parse(instant) - 1).toISOString();
const RECORD_CUTS = RECORD_TIMES.flatMap((t) => [minusMs(t), t]);
const VALID_CUTS: ValidAt[] = ['*', ...VALID_TIMES];
const EDGE_E1_WORKS_AT_E0: Step = {
  k: 'edge',
  factId: null,
  src: 1,
  rel: 0,
  dst: { e: 0 },
  validFrom: null,
  validTo: 'omit',
  confidence: null,
  evidence: null,
  source: 'omit',
};
const QUERIES = ['Name 1', 'Name 3 works at Name 0', 'hi', 'bye event', 'hi before Name 2', 'knows one 1 true'];

describe('the search corpus fed by the read models', () => {
  let log: ProjectedLog;
  let store: PostgresLogStore;
  let projector: Projector;
  let queries: MemoryQueries;
  let corpora: SearchCorpora;
  let memories = 0;

  beforeAll(async () => {
    log = await startProjectedLog();
    ({ store, projector } = log);
    queries = new PostgresMemoryQueries(log.db.pool);
    corpora = new SearchCorpora(new PostgresSearchFeed(log.db.pool));
  });
  afterAll(() => log.stop());

  it('answers every search like the read models’ cut, refreshed batch by batch', async () => {
    await fc.assert(
      fc.asyncProperty(historyArb, fc.nat(), async (batches, seed) => {
        const memoryId = `corpus-${++memories}`;
        const lengths: number[] = [];
        const run = runHistory(batches, { memoryId, afterBatch: (_, log) => lengths.push(log.length) });
        let pick = seed;
        const next = <T>(list: readonly T[]) => list[(pick = (pick * 1103515245 + 12345) % 2147483648) % list.length]!;
        const same = async (searched: SearchCorpora, cut: Cut, query: string) => {
          const fast = JSON.stringify(await searchMemory(await searched.cut(memoryId, cut), { query, k: 10 }));
          const reference = JSON.stringify(await searchMemory(await referenceCut(queries, memoryId, cut), { query, k: 10 }));
          if (fast !== reference) throw new Error(`${JSON.stringify({ cut, query })}\ncorpus    ${fast}\nreference ${reference}`);
        };
        let appended = 0;
        for (const length of lengths) {
          if (length === appended) continue;
          const { position } = await store.append(memoryStreamId(memoryId), toNewRecords(memoryId, run.log.slice(appended, length)), {
            expectedRevision: appended === 0 ? 'no_stream' : appended - 1,
          });
          appended = length;
          expect(await projector.waitForPosition(position, 30_000)).toBe(true);
          for (let i = 0; i < 2; i++) await same(corpora, { validAt: next(VALID_CUTS), recordedAt: next(RECORD_CUTS) }, next(QUERIES));
        }
        for (const recordedAt of RECORD_CUTS) for (const validAt of VALID_CUTS) await same(corpora, { validAt, recordedAt }, next(QUERIES));
        // A corpus that reads the whole memory at once (pages of 3 rows: keyset paging) answers the same.
        const fresh = new SearchCorpora(new PostgresSearchFeed(log.db.pool, 3));
        for (const recordedAt of RECORD_CUTS) await same(fresh, { validAt: next(VALID_CUTS), recordedAt }, next(QUERIES));
      }),
      {
        numRuns: 12,
        examples: [
          // An entity erased, named in a fact, then named again: before its new name, a cut shows its id.
          [
            [
              {
                advance: 1,
                lag: 0,
                steps: [
                  { step: { k: 'erase', subject: 'entity', ref: 1 }, mode: 'explicit', resend: false },
                  { step: { k: 'move', src: 0, dst: 0, validFrom: 0 }, mode: 'explicit', resend: false },
                ],
              },
              { advance: 1, lag: 0, steps: [{ step: EDGE_E1_WORKS_AT_E0, mode: 'explicit', resend: false }] },
              { advance: 1, lag: 0, steps: [{ step: { k: 'entity', e: 1, alias: null, type: null }, mode: 'server', resend: false }] },
            ],
            0,
          ],
        ],
      },
    );
  }, 600_000);

  it('gives its connection back out of its snapshot when the consumer stops a full read (a page in flight)', async () => {
    const memoryId = 'corpus-stopped';
    const { position } = await store.append(memoryStreamId(memoryId), toNewRecords(memoryId, runHistory([], { memoryId }).log), {
      expectedRevision: 'no_stream',
    });
    expect(await projector.waitForPosition(position, 30_000)).toBe(true);
    // One connection: the next query runs on the one the read used.
    const pool = createPool(log.db.url, { max: 1 });
    try {
      for await (const chunk of new PostgresSearchFeed(pool, 1).allItems(memoryId)) if (chunk.facts.length > 0) break;
      const { rows } = await pool.query<{ transaction_isolation: string }>('SHOW transaction_isolation');
      expect(rows[0]!.transaction_isolation).toBe('read committed');
    } finally {
      await pool.end();
    }
  });
  it('refuses to load a memory with more item versions than it keeps, and keeps serving the others', async () => {
    const large = 'corpus-large';
    const commands: Command[] = [
      { op: 'UPSERT_ENTITY', commandId: 'c-e', entityId: 'ada', name: 'Ada' },
      ...Array.from({ length: 6 }, (_, i): Command => ({
        op: 'RECORD_MENTION',
        commandId: `c-m${i}`,
        mentionId: `m${i}`,
        docId: 'd',
        text: `Ada said thing ${i}`,
      })),
    ];
    const { records } = decideBatch(large, initialState(), commands, '2024-05-06T00:00:00.000Z');
    const { position } = await store.append(memoryStreamId(large), toNewRecords(large, records), { expectedRevision: 'no_stream' });
    expect(await projector.waitForPosition(position, 30_000)).toBe(true);
    const cut: Cut = { validAt: '*', recordedAt: '2100-01-01T00:00:00.000Z' };
    const sized = new SearchCorpora(new PostgresSearchFeed(log.db.pool));
    await sized.cut(large, cut);
    const versions = sized.versions;
    expect(versions).toBeGreaterThan(2);
    // Pages of one row: the load stops at the first page past the bound, not at the end of the memory.
    const feed = new PostgresSearchFeed(log.db.pool, 1);
    const allItems = jest.spyOn(feed, 'allItems');
    const bounded = new SearchCorpora(feed, { maxVersions: versions - 1 });
    // Two searches at once: the second waits for the first's load and is refused without reading the memory again.
    const searches = [bounded.cut(large, cut), bounded.cut(large, cut)];
    await expect(searches[0]).rejects.toMatchObject({ code: 'SEARCH_TOO_LARGE', status: 503 });
    await expect(searches[1]).rejects.toMatchObject({ code: 'SEARCH_TOO_LARGE' });
    await expect(bounded.cut(large, cut)).rejects.toMatchObject({ code: 'SEARCH_TOO_LARGE' });
    expect(allItems).toHaveBeenCalledTimes(1);
    expect(bounded.versions).toBe(0);
    const fits = new SearchCorpora(new PostgresSearchFeed(log.db.pool, 1), { maxVersions: versions });
    await fits.cut(large, cut);
    expect(fits.versions).toBe(versions);
  });
});
