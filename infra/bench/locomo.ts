import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Conversation, DEV, HELD_OUT, loadLocomo } from './locomo-data';
import { askQuestions, caughtUp, type Post, startLocomoService } from './locomo-harness';
import { type QuestionScore, report } from './locomo-metrics';
import { summary } from './stats';

const SPLITS = { dev: DEV, 'held-out': HELD_OUT } as const;
type Split = keyof typeof SPLITS;

/**
 * `npm run bench:locomo`: LoCoMo evidence recall of POST .../search, following
 * ../shared/data/locomo/README.md: every turn is a RECORD_MENTION through the public
 * HTTP API (one memory per conversation, recordedAt = the session time), each
 * question asked As-Recorded one day after the last session, at two moments: right after
 * its conversation is written (with the last write's `position` as `minPosition`, as an
 * agent asks on its next turn), and at rest (every projector caught up). Embedded
 * PostgreSQL in a temp dir; the backend is the embedded engine, or OpenSearch with
 * OPENSEARCH_URL. EMBEDDINGS=off measures plain BM25 + expansion, EMBEDDINGS=bge-small-en-v1.5
 * the local ONNX model instead of USE lite. Vectors start from an empty cache, so the search
 * index embeds as it would for new conversations; EMBEDDINGS_CACHE_DIR names a cache to keep
 * (right after writing is then as good as at rest: nothing is left to embed).
 * LOCOMO_SPLITS=dev asks the dev split only (tuning); the default asks both.
 */
async function main(): Promise<void> {
  const splits = (process.env['LOCOMO_SPLITS'] ?? 'dev,held-out').split(',').map((s) => s.trim()) as Split[];
  for (const split of splits) if (!(split in SPLITS)) throw new Error(`LOCOMO_SPLITS: unknown split ${split} (dev, held-out)`);
  const asked = new Set(splits.flatMap((split) => SPLITS[split]));
  const conversations = loadLocomo().filter((c) => asked.has(c.sampleId));
  const cold = process.env['EMBEDDINGS_CACHE_DIR'] === undefined ? mkdtempSync(join(tmpdir(), 'memotrace-locomo-vectors-')) : undefined;
  if (cold) process.env['EMBEDDINGS_CACHE_DIR'] = cold;
  const service = await startLocomoService();
  const backend = process.env['OPENSEARCH_URL'] ? 'OpenSearch' : 'embedded engine';
  try {
    const started = Date.now();
    const afterWriting = new Map<string, QuestionScore[]>();
    const latencies = { afterWriting: [] as number[], atRest: [] as number[] };
    for (const conversation of conversations) {
      const position = await ingest(conversation, service.post);
      afterWriting.set(
        conversation.sampleId,
        await askQuestions(service.post, conversation, conversation.sampleId, latencies.afterWriting, undefined, position),
      );
    }
    const turns = conversations.reduce((n, c) => n + c.sessions.reduce((m, s) => m + s.turns.length, 0), 0);
    console.log(
      `${backend}: ${conversations.length} conversations (${turns} turns) written and asked in ${((Date.now() - started) / 1000).toFixed(1)} s`,
    );
    await caughtUp(service.db);
    console.log(`every projector caught up after ${((Date.now() - started) / 1000).toFixed(1)} s`);
    const lines: string[] = [];
    for (const split of splits) {
      const inSplit = conversations.filter((c) => SPLITS[split].includes(c.sampleId));
      const atRest: QuestionScore[] = [];
      for (const conversation of inSplit) atRest.push(...(await askQuestions(service.post, conversation, conversation.sampleId, latencies.atRest)));
      lines.push(
        ...report(
          `${split}, right after writing`,
          inSplit.flatMap((c) => afterWriting.get(c.sampleId)!),
        ).slice(0, 1),
      );
      lines.push(...report(`${split}, at rest`, atRest));
    }
    console.log(lines.join('\n'));
    console.log(`search latency (HTTP, k=25), right after writing: ${summary(latencies.afterWriting)}`);
    console.log(`search latency (HTTP, k=25), at rest: ${summary(latencies.atRest)}`);
  } finally {
    await service.close();
    if (cold) rmSync(cold, { recursive: true, force: true });
  }
}

/** One memory per conversation; each session one batch, recordedAt = the session time. Answers the last write's position. */
async function ingest(conversation: Conversation, post: Post): Promise<number> {
  let position = 0;
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
    ({ position } = await post<{ position: number }>(`/v1/memories/${conversation.sampleId}/commands`, { commands }));
  }
  return position;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
