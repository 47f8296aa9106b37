import type { Cut, MemoryQueries, ValidAt } from '@memotrace/domain';
import { RECORD_TIMES, VALID_TIMES, historyArb, runHistory } from '@memotrace/domain/testing/histories';
import { PostgresLogStore, logStoreMigrations } from '@memotrace/log-store';
import { memoryStreamId, toNewRecords } from '@memotrace/memory-log';
import { migrate } from '@memotrace/postgres';
import { type TestDatabase, createTestDatabase } from '@memotrace/postgres/testing';
import { type Projector, startProjector } from '@memotrace/projection';
import { PostgresMemoryQueries, PostgresSearchFeed, readModelMigrations, readModelsProjection } from '@memotrace/read-models';
import { type EmbeddingProvider, VectorLookup, searchIndexMigrations, searchIndexProjection } from '@memotrace/search-index';
import { type OpenSearchItemIndex, openSearchProjection } from '@memotrace/search-opensearch';
import fc from 'fast-check';
import { describeWithOpenSearch, freshIndex, hashedEmbedding } from '../../../../libs/search-opensearch/src/testing/opensearch-test-env';
import { SearchCorpora } from './corpora';
import { type VectorSource, embeddedRecall } from './embedded-recall';
import { openSearchRecall } from './opensearch-recall';
import { referenceCut } from './reference-cut';
import { searchMemory } from './search';

/**
 * One ranking, two backends: over random histories (merges, supersession, retro-corrections,
 * archives, events, episodes, mentions, erasures) projected by the real projectors into
 * PostgreSQL and a real OpenSearch node, a search through OpenSearch (its k-NN supplying the
 * candidates, the cut and BM25 the engine's) answers exactly as the embedded engine does over the
 * reference cut, with the same vectors. A bag-of-words embedder stands in for a model, so the
 * k-NN has something to find.
 */
const minusMs = (instant: string) => new Date(Date.parse(instant) - 1).toISOString();
const RECORD_CUTS = RECORD_TIMES.flatMap((t) => [minusMs(t), t]);
const VALID_CUTS: ValidAt[] = ['*', ...VALID_TIMES];
const QUERIES = ['Name 1', 'Name 3 works at Name 0', 'hi', 'bye event', 'hi before Name 2', 'knows one 1 true', 'event about nothing'];
const MODEL = 'hashed-bag-of-words';

const provider: EmbeddingProvider = {
  model: MODEL,
  dimension: 512,
  embed: async (texts) => texts.map((text) => Float32Array.from(hashedEmbedding(text))),
};

describeWithOpenSearch('search through OpenSearch ranks as the embedded engine', (url) => {
  let db: TestDatabase;
  let store: PostgresLogStore;
  let index: OpenSearchItemIndex;
  let readModels: Projector;
  let vectors: Projector;
  let openSearch: Projector;
  let queries: MemoryQueries;
  let corpora: SearchCorpora;
  let source: VectorSource;
  let memories = 0;

  beforeAll(async () => {
    db = await createTestDatabase();
    await migrate(db.pool, [...logStoreMigrations, ...readModelMigrations, ...searchIndexMigrations]);
    store = new PostgresLogStore(db.pool, { pollIntervalMs: 50 });
    index = await freshIndex(url, 'ranking');
    readModels = await startProjector({ store, pool: db.pool, projections: [readModelsProjection], retryMs: 50 });
    vectors = await startProjector({ store, pool: db.pool, projections: [searchIndexProjection(provider)], retryMs: 50 });
    const embedder = { embed: async (texts: readonly string[]) => texts.map((text) => hashedEmbedding(text)) };
    openSearch = await startProjector({ store, pool: db.pool, projections: [openSearchProjection(index, { embedder })], batchSize: 8, retryMs: 50 });
    queries = new PostgresMemoryQueries(db.pool);
    corpora = new SearchCorpora(new PostgresSearchFeed(db.pool));
    const lookup = new VectorLookup(db.pool);
    source = {
      model: MODEL,
      queryVector: async (query) => Float32Array.from(hashedEmbedding(query)),
      vectors: (hashes) => lookup.vectors(MODEL, hashes),
    };
  }, 120_000);

  afterAll(async () => {
    for (const projector of [readModels, vectors, openSearch]) await projector?.stop();
    await index?.dropIndex();
    await index?.close();
    await store?.close();
    await db?.drop();
  });

  it('answers every search of random histories as the embedded engine over the reference cut', async () => {
    let compared = 0;
    let knnCalls = 0;
    const knn: OpenSearchItemIndex['knn'] = (...args) => {
      knnCalls += 1;
      return index.knn(...args);
    };
    await fc.assert(
      fc.asyncProperty(historyArb, fc.nat(), async (batches, seed) => {
        const memoryId = `os-ranking-${++memories}`;
        const lengths: number[] = [];
        const run = runHistory(batches, { memoryId, afterBatch: (_, log) => lengths.push(log.length) });
        let pick = seed;
        const next = <T>(list: readonly T[]) => list[(pick = (pick * 1103515245 + 12345) % 2147483648) % list.length]!;
        let position = 0;
        const indexed = { waitFor: (at: number) => openSearch.waitForPosition(at, 0) };
        const viaOpenSearch = openSearchRecall({ knn }, source, undefined, { openSearch: indexed });
        const embedded = embeddedRecall(source);
        const same = async (cut: Cut, query: string) => {
          const written = { position, readYourWrites: false };
          const fast = await searchMemory(await corpora.cut(memoryId, cut), { query, k: 10 }, undefined, { recall: viaOpenSearch, written });
          const reference = await searchMemory(await referenceCut(queries, memoryId, cut), { query, k: 10 }, undefined, { recall: embedded });
          compared += 1;
          const [a, b] = [JSON.stringify(fast.items), JSON.stringify(reference.items)];
          if (a !== b) throw new Error(`${JSON.stringify({ memoryId, cut, query })}\nOpenSearch ${a}\nreference  ${b}`);
        };
        let appended = 0;
        for (const length of lengths) {
          if (length === appended) continue;
          const appendedAt = await store.append(memoryStreamId(memoryId), toNewRecords(memoryId, run.log.slice(appended, length)), {
            expectedRevision: appended === 0 ? 'no_stream' : appended - 1,
          });
          appended = length;
          position = Number(appendedAt.position);
          for (const projector of [readModels, vectors, openSearch]) expect(await projector.waitForPosition(position, 60_000)).toBe(true);
          for (let i = 0; i < 2; i++) await same({ validAt: next(VALID_CUTS), recordedAt: next(RECORD_CUTS) }, next(QUERIES));
        }
        for (const recordedAt of RECORD_CUTS) await same({ validAt: next(VALID_CUTS), recordedAt }, next(QUERIES));
      }),
      { numRuns: 10 },
    );
    process.stderr.write(`OpenSearch ranking: ${compared} searches compared, ${knnCalls} k-NN answered by OpenSearch\n`);
    // Every projector had the log when the searches ran: a cut with items asked OpenSearch.
    expect(knnCalls).toBeGreaterThan(compared / 2);
  }, 900_000);
});
