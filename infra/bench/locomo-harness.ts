import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startMemoTrace } from '@memotrace/memotrace';
import { readConfig } from '@memotrace/runtime';
import { Client } from 'pg';
import pino from 'pino';
import type { Conversation } from './locomo-data';
import { type QuestionScore, type SearchHit, recall, retrievedTurns } from './locomo-metrics';
import { timed } from './stats';

/**
 * What the LoCoMo benches share: the service on embedded PostgreSQL in a temp dir (vectors
 * cached on disk in .cache/embeddings), a JSON POST helper, the wait for the projectors, and
 * the question loop of the protocol in ../shared/data/locomo/README.md.
 */
const REPO = resolve(__dirname, '../..');
const DAY = 86_400_000;

export type Post = <T>(path: string, body: unknown) => Promise<T>;

export interface LocomoService {
  url: string;
  db: Client;
  post: Post;
  close(): Promise<void>;
}

export async function startLocomoService(): Promise<LocomoService> {
  process.env['EMBEDDINGS_CACHE_DIR'] ??= join(REPO, '.cache/embeddings');
  const dataDir = mkdtempSync(join(tmpdir(), 'memotrace-locomo-'));
  chmodSync(dataDir, 0o755); // the embedded server runs as the postgres user
  const service = await startMemoTrace({ ...readConfig(), dataDir, port: 0 }, pino({ level: 'warn' }));
  const db = new Client({ connectionString: service.databaseUrl });
  await db.connect();
  const post: Post = async <T>(path: string, body: unknown) => {
    const response = await fetch(`${service.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (response.status !== 200) throw new Error(`${path} failed: ${response.status} ${await response.text()}`);
    return response.json() as Promise<T>;
  };
  return {
    url: service.url,
    db,
    post,
    close: async () => {
      await db.end();
      await service.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * Waits until every projector (read models, search index, OpenSearch when OPENSEARCH_URL is set) has passed the
 * log head (responses carry per-memory positions).
 */
export async function caughtUp(db: Client): Promise<void> {
  const { rows: head } = await db.query<{ position: string | null }>('SELECT max(position) AS position FROM mt_events');
  const position = Number(head[0]?.position ?? 0);
  const projections = 1 + (process.env['EMBEDDINGS'] === 'off' ? 0 : 1) + (process.env['OPENSEARCH_URL'] ? 1 : 0);
  for (;;) {
    const { rows } = await db.query<{ position: string }>(
      `SELECT position FROM rm_checkpoints WHERE projection IN ('read-models', 'search-index') OR projection LIKE 'search-opensearch%'`,
    );
    if (rows.length >= projections && rows.every((r) => Number(r.position) >= position)) return;
    await new Promise((r) => setTimeout(r, 500));
  }
}

/**
 * Every question of the conversation with gold evidence, asked of `memoryId` As-Recorded one day
 * after the last session: a `k: 25` search for R@5/10/25 and a `tokenBudget: 600, k: 100` one for
 * the packed figure. `cites` maps derived facts and events to their turns (see `retrievedTurns`).
 */
export async function askQuestions(
  post: Post,
  conversation: Conversation,
  memoryId: string,
  latencies: number[],
  cites?: ReadonlyMap<string, readonly string[]>,
  minPosition?: number,
): Promise<QuestionScore[]> {
  const at = new Date(Date.parse(conversation.sessions[conversation.sessions.length - 1]!.at) + DAY).toISOString();
  const path = `/v1/memories/${memoryId}/search`;
  const scores: QuestionScore[] = [];
  const cut = { recordedAt: at, validAt: at, ...(minPosition === undefined ? {} : { minPosition }) };
  for (const q of conversation.questions) {
    const top = await timed(latencies, () => post<{ items?: SearchHit[] }>(path, { query: q.question, ...cut, k: 25 }));
    const packed = await post<{ items?: SearchHit[] }>(path, { query: q.question, ...cut, k: 100, tokenBudget: 600 });
    const ranked = retrievedTurns(top.items ?? [], cites);
    scores.push({
      category: q.category,
      r5: recall(q.evidence, ranked.slice(0, 5).flat()),
      r10: recall(q.evidence, ranked.slice(0, 10).flat()),
      r25: recall(q.evidence, ranked.slice(0, 25).flat()),
      packed: recall(q.evidence, retrievedTurns(packed.items ?? [], cites).flat()),
      turns10: recall(q.evidence, [...new Set(ranked.flat())].slice(0, 10)),
    });
  }
  return scores;
}
