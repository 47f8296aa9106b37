import { randomBytes } from 'node:crypto';
import type { EmbeddingProvider } from '@memotrace/search-index';
import { OpenSearchItemIndex } from '@memotrace/search-opensearch';
import { OPENSEARCH_URL } from '../../../libs/search-opensearch/src/testing/opensearch-test-env';
import { hashedEmbeddings } from './testing/opensearch-service';
import { type TestService, startTestService } from './testing/test-service';

/** Embeds as the test embedder does, a quarter of a second late per batch: the search index trails the read models. */
const slowEmbeddings: EmbeddingProvider = {
  model: hashedEmbeddings.model,
  embed: async (texts) => {
    await new Promise((resolve) => setTimeout(resolve, 250));
    return hashedEmbeddings.embed(texts);
  },
};

const TURNS = [
  ['Dana', 'I have decided to start looking for work again.'],
  ['Sam', 'What kind of job are you after?'],
  ['Dana', 'Something in data entry, ideally remote, because of the kids.'],
  ['Sam', 'My cousin found a remote data entry job last spring.'],
  ['Dana', 'I just got an email saying I got the remote data entry job!'],
  ['Sam', 'Congratulations, when do you start?'],
  ['Dana', 'Next Monday. The children start school the same week.'],
] as const;
const QUERIES = ['remote data entry job', 'when does Dana start', 'school children', 'looking for work'];

/**
 * An agent writes a conversation and asks at once with the write's `position` as `minPosition`: the
 * answer is the one it gets once every projector has caught up, on the embedded engine (the search
 * waits, bounded, for the vectors of what was written) and on OpenSearch (which is asked only once it
 * has the write; until then the engine answers its k-NN in process).
 */
describe.each([
  ['the embedded engine', undefined],
  ['OpenSearch', OPENSEARCH_URL],
] as const)('a search right after a write, on %s', (backend, openSearchUrl) => {
  const run = backend === 'OpenSearch' && !openSearchUrl ? it.skip : it;
  let t: TestService;
  const indexName = `memotrace-test-after-write-${randomBytes(4).toString('hex')}`;

  beforeAll(async () => {
    if (backend === 'OpenSearch' && !openSearchUrl) return;
    t = await startTestService(openSearchUrl ? { openSearchUrl } : {}, {
      embeddings: slowEmbeddings,
      ...(openSearchUrl ? { openSearchIndex: indexName } : {}),
    });
  }, 60_000);
  afterAll(async () => {
    await t?.stop();
    if (openSearchUrl) {
      const index = new OpenSearchItemIndex({ url: openSearchUrl, index: indexName });
      await index.dropIndex();
      await index.close();
    }
  });

  run(
    'answers as it does at rest, with every item embedded',
    async () => {
      const M = `after-write-${backend === 'OpenSearch' ? 'os' : 'embedded'}`;
      const written = await t.commands(
        M,
        TURNS.map(([speaker, text], i) => ({
          op: 'RECORD_MENTION',
          mentionId: `t${i}`,
          docId: 'chat',
          speaker,
          text,
          occurredAt: `2024-05-0${1 + Math.floor(i / 3)}T10:0${i}:00.000Z`,
          recordedAt: '2024-05-06T00:00:00.000Z',
        })),
      );
      expect(written.status).toBe(200);
      const search = async (query: string, minPosition?: number) => {
        const { status, body } = await t.post(`/v1/memories/${M}/search`, { query, k: 5, recordedAt: '2024-06-01T00:00:00.000Z', minPosition });
        expect(status).toBe(200);
        return body as { items: { kind: string; id: string; score: number }[]; unembedded?: number };
      };
      const atOnce = [];
      for (const query of QUERIES) atOnce.push(await search(query, written.body.position));
      // At rest: the search projection and OpenSearch have had time for the seven turns many times over.
      await new Promise((resolve) => setTimeout(resolve, 3000));
      for (const [i, query] of QUERIES.entries()) {
        const rest = await search(query);
        expect(atOnce[i]!.items.length).toBeGreaterThan(0);
        expect(atOnce[i]).toEqual(rest);
        expect(rest.unembedded ?? 0).toBe(0);
      }
    },
    60_000,
  );
});
