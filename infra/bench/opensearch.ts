import { execFileSync, spawnSync } from 'node:child_process';
import { OpenSearchItemIndex, type SearchDoc } from '@memotrace/search-opensearch';
import { hashedEmbedding } from '../../libs/search-opensearch/src/testing/opensearch-test-env';
import { summary, timed } from './stats';

/**
 * `npm run bench:opensearch`: the OpenSearch backend alone, against OPENSEARCH_URL when
 * set, else a node started here (infra/opensearch/opensearch.sh, stopped at the end):
 * node start time and memory, bulk indexing of DOCS items (text + 512-d vector +
 * record/valid ranges) in 500-doc bulks, then BM25 and k-NN query latency with the
 * bitemporal cut inside the query. Vectors are a bag-of-words hash (no model), so the
 * figures are the index's, not an embedder's.
 */
const DOCS = Number(process.env.BENCH_DOCS ?? 20_000);
const QUERIES = Number(process.env.BENCH_QUERIES ?? 500);
const MEMORIES = 20;
const VOCABULARY =
  'alice bob carol dave moved to berlin paris london hiking climbing sailing coffee tea job acme beta school sister brother dog cat concert trip';
const WORDS = VOCABULARY.split(' ');

function sentence(n: number): string {
  let x = n * 2654435761;
  const words: string[] = [];
  for (let i = 0; i < 9; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    words.push(WORDS[x % WORDS.length]!);
  }
  return words.join(' ');
}

const T = (n: number) => new Date(Date.UTC(2024, 0, 1) + n * 60_000).toISOString();

async function main(): Promise<void> {
  let url = process.env['OPENSEARCH_URL'];
  let pid: string | undefined;
  if (!url) {
    const started = Date.now();
    const out = execFileSync('infra/opensearch/opensearch.sh', ['start'], {
      env: { ...process.env, OPENSEARCH_OWNER_PID: String(process.pid) },
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    url = /OPENSEARCH_URL=(\S+)/.exec(out)![1]!;
    pid = /OPENSEARCH_PID=(\d+)/.exec(out)![1]!;
    console.log(`node start (script to green): ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }
  const index = new OpenSearchItemIndex({ url, index: `memotrace-bench-${process.pid}` });
  try {
    await index.ensureIndex();
    const docs: SearchDoc[] = Array.from({ length: DOCS }, (_, n) => {
      const text = sentence(n);
      const closed = n % 4 === 0;
      return {
        memoryId: `m${n % MEMORIES}`,
        itemKey: `fact:f${n}#${n + 1}`,
        kind: 'fact',
        itemId: `f${n}`,
        text,
        vector: hashedEmbedding(text),
        recorded: [{ from: T(n), to: closed ? T(n + 500) : null }],
        valid: { from: T(n - 1000), to: null },
        recordedFrom: T(n),
        recordedTo: closed ? T(n + 500) : null,
        position: n + 1,
      };
    });
    const bulkStart = Date.now();
    for (let i = 0; i < docs.length; i += 500) await index.upsert(docs.slice(i, i + 500), { refresh: false });
    await index.client.indices.refresh({ index: index.index });
    const seconds = (Date.now() - bulkStart) / 1000;
    console.log(`bulk index: ${DOCS} docs in ${seconds.toFixed(1)} s (${Math.round(DOCS / seconds)} docs/s, 500 per bulk, refresh at the end)`);

    const bm25: number[] = [];
    const knn: number[] = [];
    for (let q = 0; q < QUERIES; q++) {
      const memoryId = `m${q % MEMORIES}`;
      const cut = { validAt: T((q * 37) % DOCS), recordedAt: T((q * 53) % DOCS) };
      const text = sentence(DOCS + q)
        .split(' ')
        .slice(0, 4)
        .join(' ');
      await timed(bm25, () => index.bm25(memoryId, text, cut, 25));
      await timed(knn, () => index.knn(memoryId, hashedEmbedding(text), cut, 25));
    }
    const drop = Math.floor(QUERIES / 10); // first tenth is warm-up
    console.log(`bm25 k=25 with cut: ${summary(bm25.slice(drop))}`);
    console.log(`knn  k=25 with cut: ${summary(knn.slice(drop))}`);
    if (pid) {
      const rss = spawnSync('ps', ['-o', 'rss=', '-p', pid], { encoding: 'utf8' }).stdout.trim();
      console.log(`node RSS after the run: ${Math.round(Number(rss) / 1024)} MiB (heap -Xmx${process.env['OPENSEARCH_HEAP'] ?? '512m'})`);
    }
  } finally {
    await index.dropIndex().catch(() => undefined);
    await index.close();
    if (pid) execFileSync('infra/opensearch/opensearch.sh', ['stop', pid], { stdio: 'inherit' });
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
