import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { OpenSearchItemIndex } from '../opensearch-item-index';

/**
 * The OpenSearch specs run against a real node at OPENSEARCH_URL (infra/scripts/test.sh
 * starts one with infra/opensearch/opensearch.sh). Without it they are not selected:
 * `describe.skip`, with the reason in the title, so nothing runs and nothing fails.
 */
export const OPENSEARCH_URL = process.env['OPENSEARCH_URL'];

export function describeWithOpenSearch(title: string, body: (url: string) => void): void {
  if (OPENSEARCH_URL) {
    describe(title, () => body(OPENSEARCH_URL));
    return;
  }
  process.stderr.write(`${title}: OPENSEARCH_URL is not set, not run (infra/opensearch/opensearch.sh start gives one)\n`);
  describe.skip(`${title} (OPENSEARCH_URL not set: needs a real OpenSearch node)`, () => body(''));
}

/** A fresh, uniquely named index (parallel runs share one node); dropped by the caller. */
export async function freshIndex(url: string, label: string): Promise<OpenSearchItemIndex> {
  const index = new OpenSearchItemIndex({ url, index: `memotrace-test-${label}-${randomBytes(4).toString('hex')}` });
  await index.ensureIndex();
  return index;
}

/** A deterministic bag-of-words embedder: cosine similarity = word overlap. For tests only. */
export function hashedEmbedding(text: string, dimension = 512): number[] {
  const vector: number[] = Array.from({ length: dimension }, () => 0);
  for (const word of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    let h = 2166136261;
    for (const ch of word) h = Math.imul(h ^ ch.codePointAt(0)!, 16777619);
    vector[(h >>> 0) % dimension]! += 1;
  }
  if (!vector.some((v) => v !== 0)) vector[0] = 1; // cosine needs a non-zero vector
  const norm = Math.hypot(...vector);
  return vector.map((v) => v / norm);
}

/** A node of a test's own (infra/opensearch/opensearch.sh), for a test that kills and restarts it. */
export interface OwnOpenSearch {
  url: string;
  /** SIGKILL: a crash; its data stays. */
  kill(): Promise<void>;
  /** Starts it again on the same port and data; resolves once the cluster is yellow. */
  restart(): Promise<void>;
  /** Stops it and deletes its data. */
  stop(): Promise<void>;
}

const OPENSEARCH_SH = join(__dirname, '../../../../infra/opensearch/opensearch.sh');

export async function startOwnOpenSearch(): Promise<OwnOpenSearch> {
  const run = async (...args: string[]) => {
    const { stdout } = await promisify(execFile)('bash', [OPENSEARCH_SH, ...args], {
      env: { ...process.env, OPENSEARCH_OWNER_PID: String(process.pid) },
    });
    return Object.fromEntries(
      stdout
        .trim()
        .split('\n')
        .map((line) => line.split('=', 2) as [string, string]),
    );
  };
  const started = await run('start');
  const url = started['OPENSEARCH_URL']!;
  const base = started['OPENSEARCH_BASE']!;
  let pid = started['OPENSEARCH_PID']!;
  return {
    url,
    kill: async () => void (await run('kill', pid)),
    restart: async () => void (pid = (await run('restart', new URL(url).port, base))['OPENSEARCH_PID']!),
    stop: async () => void (await run('stop', pid)),
  };
}
