import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startMemoTrace } from '@memotrace/memotrace';
import { readConfig } from '@memotrace/runtime';
import { Client } from 'pg';
import pino from 'pino';
import { type Conversation, DEV, HELD_OUT, loadLocomo } from './locomo-data';
import { type QuestionScore, recall, report } from './locomo-metrics';
import { summary, timed } from './stats';

/**
 * `npm run bench:locomo`: LoCoMo evidence recall of POST .../search, following
 * ../shared/data/locomo/README.md: every turn is a RECORD_MENTION through the public
 * HTTP API (one memory per conversation, recordedAt = the session time), each
 * question asked As-Recorded one day after the last session. Embedded PostgreSQL in
 * a temp dir; vectors cached on disk in .cache/embeddings (git-ignored) so reruns
 * skip the slow model. EMBEDDINGS=off measures plain BM25 + expansion,
 * EMBEDDINGS=bge-small-en-v1.5 the local ONNX model instead of USE lite.
 */
const REPO = resolve(__dirname, '../..');
const DAY = 86_400_000;

async function main(): Promise<void> {
  process.env['EMBEDDINGS_CACHE_DIR'] ??= join(REPO, '.cache/embeddings');
  const conversations = loadLocomo();
  const dataDir = mkdtempSync(join(tmpdir(), 'memotrace-locomo-'));
  chmodSync(dataDir, 0o755); // the embedded server runs as the postgres user
  const service = await startMemoTrace({ ...readConfig(), dataDir, port: 0 }, pino({ level: 'warn' }));
  const db = new Client({ connectionString: service.databaseUrl });
  await db.connect();
  const post = async (path: string, body: unknown) => {
    const response = await fetch(`${service.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (response.status !== 200) throw new Error(`${path} failed: ${response.status} ${await response.text()}`);
    return response.json() as Promise<{ position?: number; items?: { kind: string; id: string }[] }>;
  };
  try {
    const started = Date.now();
    for (const conversation of conversations) await ingest(conversation, post);
    const turns = conversations.reduce((n, c) => n + c.sessions.reduce((m, s) => m + s.turns.length, 0), 0);
    console.log(`ingested ${conversations.length} conversations (${turns} turns) in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    await caughtUp(db);
    console.log(`read models and search index caught up after ${((Date.now() - started) / 1000).toFixed(1)} s`);
    const latencies: number[] = [];
    const lines: string[] = [];
    for (const [label, split] of [
      ['dev', DEV],
      ['held-out', HELD_OUT],
    ] as const) {
      const scores: QuestionScore[] = [];
      for (const conversation of conversations.filter((c) => split.includes(c.sampleId))) {
        const at = new Date(Date.parse(conversation.sessions[conversation.sessions.length - 1]!.at) + DAY).toISOString();
        const path = `/v1/memories/${conversation.sampleId}/search`;
        for (const q of conversation.questions) {
          const top = await timed(latencies, () => post(path, { query: q.question, recordedAt: at, validAt: at, k: 25 }));
          const packed = await post(path, { query: q.question, recordedAt: at, validAt: at, k: 100, tokenBudget: 600 });
          const mentions = (r: typeof top) => (r.items ?? []).filter((i) => i.kind === 'mention').map((i) => i.id);
          const ranked = mentions(top);
          scores.push({
            category: q.category,
            r5: recall(q.evidence, ranked.slice(0, 5)),
            r10: recall(q.evidence, ranked.slice(0, 10)),
            r25: recall(q.evidence, ranked.slice(0, 25)),
            packed: recall(q.evidence, mentions(packed)),
          });
        }
      }
      lines.push(...report(label, scores));
    }
    console.log(lines.join('\n'));
    console.log(`search latency (HTTP, k=25): ${summary(latencies)}`);
  } finally {
    await db.end();
    await service.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** One memory per conversation; each session one batch, recordedAt = the session time. */
async function ingest(conversation: Conversation, post: (path: string, body: unknown) => Promise<unknown>): Promise<void> {
  for (const session of conversation.sessions) {
    const commands = session.turns.map((turn) => ({
      op: 'RECORD_MENTION',
      commandId: `${conversation.sampleId}:${turn.dia_id}`,
      recordedAt: session.at,
      mentionId: turn.dia_id,
      docId: `${conversation.sampleId}:session_${session.number}`,
      speaker: turn.speaker,
      text: turn.text,
      occurredAt: session.at,
    }));
    await post(`/v1/memories/${conversation.sampleId}/commands`, { commands });
  }
}

/** Waits until both projectors (read models, search index) have passed the log head (responses carry per-memory positions). */
async function caughtUp(db: Client): Promise<void> {
  const { rows: head } = await db.query<{ position: string | null }>('SELECT max(position) AS position FROM mt_events');
  const position = Number(head[0]?.position ?? 0);
  for (;;) {
    const { rows } = await db.query<{ position: string }>(`SELECT position FROM rm_checkpoints WHERE projection IN ('read-models', 'search-index')`);
    if (rows.length >= (process.env['EMBEDDINGS'] === 'off' ? 1 : 2) && rows.every((r) => Number(r.position) >= position)) return;
    await new Promise((r) => setTimeout(r, 500));
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
