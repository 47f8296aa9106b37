import { randomBytes } from 'node:crypto';
import { OpenSearchItemIndex } from '@memotrace/search-opensearch';
import { Pool } from 'pg';
import { describeWithOpenSearch } from '../../../libs/search-opensearch/src/testing/opensearch-test-env';
import { MONDAY, THU, WED, WED_NOON } from './testing/alice-joins-acme';
import { hashedEmbeddings, untilOpenSearchHasTheLog } from './testing/opensearch-service';
import { type TestService, startTestService } from './testing/test-service';

const M = 'os-story';
const LATE = ['m-thu', 'alice-beta', 'ev-move', 'ep-move'];

/** The whole service with OPENSEARCH_URL: the OpenSearch projector feeds the index, search asks it for k-NN candidates. */
describeWithOpenSearch('search answered through OpenSearch (OPENSEARCH_URL)', (url) => {
  let t: TestService;
  let pool: Pool;
  const indexName = `memotrace-test-service-${randomBytes(4).toString('hex')}`;
  // Made when the suite runs: collecting a skipped suite (no OPENSEARCH_URL) must not need a node.
  let index: OpenSearchItemIndex;
  const scored = async (query: string, recordedAt: string) => {
    const { status, body } = await t.post(`/v1/memories/${M}/search`, { query, validAt: '*', recordedAt, k: 20 });
    expect(status).toBe(200);
    return body.items as { kind: string; id: string; score: number }[];
  };
  const search = async (query: string, recordedAt: string) => (await scored(query, recordedAt)).map((i) => `${i.kind}:${i.id}`);
  const waitForOpenSearch = () => untilOpenSearchHasTheLog(pool, indexName, 30_000);

  beforeAll(async () => {
    index = new OpenSearchItemIndex({ url, index: indexName });
    t = await startTestService({ openSearchUrl: url }, { embeddings: hashedEmbeddings, openSearchIndex: indexName });
    pool = new Pool({ connectionString: t.service.databaseUrl, max: 1 });
    const monday = await t.commands(M, [...MONDAY]);
    expect(monday.status).toBe(200);
    // Thursday: recorded after the Wednesday cut, and the best match for every query below.
    const thursday = await t.commands(M, [
      {
        op: 'RECORD_MENTION',
        mentionId: 'm-thu',
        docId: 'chat-2',
        text: 'I moved to Beta yesterday. Beta! Acme? Beta!',
        speaker: 'Alice',
        occurredAt: THU,
        recordedAt: THU,
      },
      { op: 'UPSERT_EDGE', factId: 'alice-beta', src: 'alice', rel: 'works_at', dst: 'beta', validFrom: WED, evidence: ['m-thu'], recordedAt: THU },
      {
        op: 'UPSERT_EVENT',
        eventId: 'ev-move',
        summary: 'Alice moved from Acme to Beta',
        includesFacts: ['alice-beta'],
        timeSpan: { from: WED },
        recordedAt: THU,
      },
      {
        op: 'UPSERT_EPISODE',
        episodeId: 'ep-move',
        title: 'The move from Acme to Beta',
        window: { from: WED },
        events: ['ev-move'],
        recordedAt: THU,
      },
    ]);
    expect(thursday.status).toBe(200);
    await waitForOpenSearch();
  }, 60_000);
  afterAll(async () => {
    await pool?.end();
    await t?.stop();
    await index.dropIndex();
    await index.close();
  });

  const findsTheCut =
    'finds the items of the cut (mentions, fact versions, events, episodes), never one recorded after it, with k-NN candidates from OpenSearch';
  it(findsTheCut, async () => {
    // The index holds the late items; only the cut keeps them out.
    expect(await index.visible(M, { validAt: '*', recordedAt: THU })).toEqual(
      expect.arrayContaining(['event:ev-move', 'fact:alice-beta', 'mention:m-thu', 'episode:ep-move']),
    );
    const wednesday = await search('Alice Acme Beta', WED_NOON);
    expect(wednesday).toEqual(expect.arrayContaining(['mention:m-mon', 'fact:alice-acme', 'event:ev-join', 'episode:ep-onboarding']));
    for (const query of ['Beta', 'Alice moved from Acme to Beta', 'I moved to Beta yesterday', 'Alice works at Beta', 'The move from Acme to Beta']) {
      const ids = await search(query, WED_NOON);
      for (const late of LATE) expect(ids.map((i) => i.split(':')[1])).not.toContain(late);
    }
    expect(await search('Beta', THU)).toEqual(expect.arrayContaining(['mention:m-thu', 'fact:alice-beta', 'event:ev-move', 'episode:ep-move']));

    // The k-NN candidates are OpenSearch's, BM25 the engine's over the cut: with the memory's documents gone
    // from the index, the same items are found by their words alone, and score less.
    const scores = async () => (await scored('Alice Acme Beta', WED_NOON)).map((i) => [`${i.kind}:${i.id}`, i.score] as const);
    const withVectors = await scores();
    await index.deleteMemory(M);
    const wordsOnly = await scores();
    expect(wordsOnly.map(([key]) => key).sort()).toEqual(withVectors.map(([key]) => key).sort());
    const total = (list: readonly (readonly [string, number])[]) => list.reduce((sum, [, score]) => sum + score, 0);
    expect(total(wordsOnly)).toBeLessThan(total(withVectors));
  });
});
