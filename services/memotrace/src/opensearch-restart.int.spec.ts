import { OpenSearchItemIndex } from '@memotrace/search-opensearch';
import { Pool } from 'pg';
import pino from 'pino';
import { type OwnOpenSearch, describeWithOpenSearch, startOwnOpenSearch } from '../../../libs/search-opensearch/src/testing/opensearch-test-env';
import { hashedEmbeddings, untilOpenSearchHasTheLog } from './testing/opensearch-service';
import { type TestService, startTestService } from './testing/test-service';

/**
 * The OpenSearch node crashes (SIGKILL) and restarts while commands stream in (docs/operations.md). Writes
 * go on, answered 200: they need the database only. Search goes on too, never 503 or 500: the cut and BM25
 * are the engine's, and while the node is away (or its projection behind) the k-NN is answered in process.
 * The OpenSearch projection resumes from its checkpoint: every acknowledged fact is in the index exactly once.
 */
jest.setTimeout(240_000);

const M = 'os-fault';
const INDEX = 'memotrace-test-os-fault';

describeWithOpenSearch('an OpenSearch node restarted during ingest', () => {
  let node: OwnOpenSearch;
  let t: TestService;
  const lines: string[] = [];

  beforeAll(async () => {
    node = await startOwnOpenSearch();
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) });
    t = await startTestService({ openSearchUrl: node.url }, { embeddings: hashedEmbeddings, openSearchIndex: INDEX, logger });
  });
  afterAll(async () => {
    await t?.stop();
    await node?.stop();
  });

  it('keeps writing and searching, and catches up from its checkpoint: no fact lost or doubled', async () => {
    expect((await t.commands(M, [{ op: 'UPSERT_ENTITY', commandId: 'alice', entityId: 'alice', name: 'Alice' }])).status).toBe(200);
    const acknowledged: string[] = [];
    const writes = new Map<number, number>();
    const searches = new Map<number, number>();
    let foundWhileAway = 0;
    let streaming = true;
    let away = false;
    const writing = (async () => {
      for (let b = 0; streaming; b++) {
        const commands = Array.from({ length: 20 }, (_, i) => ({
          op: 'UPSERT_EDGE',
          commandId: `c-${b}-${i}`,
          factId: `f-${b}-${i}`,
          src: 'alice',
          rel: 'noted',
          dst: { literal: `note ${b} ${i} about the garden`, datatype: 'string' },
          validFrom: '2024-05-06T09:00:00Z',
        }));
        const { status } = await t.commands(M, commands);
        writes.set(status, (writes.get(status) ?? 0) + 1);
        if (status === 200) acknowledged.push(...commands.map((c) => c.factId));
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })();
    const search = async () => {
      const response = await fetch(`${t.url}/v1/memories/${M}/search`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: 'garden note', k: 5 }),
      });
      searches.set(response.status, (searches.get(response.status) ?? 0) + 1);
      const body = (await response.json()) as { items?: unknown[] };
      if (away && (body.items?.length ?? 0) > 0) foundWhileAway += 1;
      return response.status;
    };
    const searchUntil = async (want: (status: number) => boolean, ms: number) => {
      for (const deadline = Date.now() + ms; Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 200))) {
        if (want(await search())) return true;
      }
      return false;
    };

    expect(await searchUntil((s) => s === 200, 10_000)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const linesAtCrash = lines.length;
    await node.kill();
    away = true;
    await searchUntil(() => false, 5_000); // searched on while it is away
    away = false;
    await node.restart();
    await searchUntil(() => false, 3_000);
    streaming = false;
    await writing;

    expect([...writes.keys()]).toEqual([200]);
    expect([...searches.keys()]).toEqual([200]);
    expect(foundWhileAway).toBeGreaterThan(5);

    // The projection catches up from its checkpoint: each acknowledged fact indexed once, none other.
    const pool = new Pool({ connectionString: t.service.databaseUrl, max: 1 });
    const index = new OpenSearchItemIndex({ url: node.url, index: INDEX });
    try {
      await untilOpenSearchHasTheLog(pool, INDEX, 60_000);
      const visible = await index.visible(M, { validAt: '*', recordedAt: new Date().toISOString() }, ['fact']);
      expect(visible).toEqual(acknowledged.map((id) => `fact:${id}`).sort());
    } finally {
      await pool.end();
      await index.close();
    }

    // Said once: the projection's outage. No request failed.
    const said = lines.slice(linesAtCrash).map((line) => (JSON.parse(line) as { msg: string }).msg);
    expect(said.filter((m) => m === 'request failed')).toEqual([]);
    expect(said.filter((m) => /^search index unavailable/.test(m))).toEqual([]);
    expect(said.filter((m) => /^OpenSearch projection failed/.test(m))).toEqual([
      'OpenSearch projection failed: the search index (OpenSearch) is unavailable; retrying until it is back',
    ]);
    process.stderr.write(
      `OpenSearch restart: ${acknowledged.length} facts written, searches ${JSON.stringify(Object.fromEntries(searches))}, ` +
        `${foundWhileAway} answered with items while the node was away\n`,
    );
  });
});
