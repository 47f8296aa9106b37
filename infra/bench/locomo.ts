import { type Conversation, DEV, HELD_OUT, loadLocomo } from './locomo-data';
import { askQuestions, caughtUp, type Post, startLocomoService } from './locomo-harness';
import { type QuestionScore, report } from './locomo-metrics';
import { summary } from './stats';

/**
 * `npm run bench:locomo`: LoCoMo evidence recall of POST .../search, following
 * ../shared/data/locomo/README.md: every turn is a RECORD_MENTION through the public
 * HTTP API (one memory per conversation, recordedAt = the session time), each
 * question asked As-Recorded one day after the last session. Embedded PostgreSQL in
 * a temp dir; vectors cached on disk in .cache/embeddings (git-ignored) so reruns
 * skip the slow model. EMBEDDINGS=off measures plain BM25 + expansion,
 * EMBEDDINGS=bge-small-en-v1.5 the local ONNX model instead of USE lite.
 */
async function main(): Promise<void> {
  const conversations = loadLocomo();
  const service = await startLocomoService();
  try {
    const started = Date.now();
    for (const conversation of conversations) await ingest(conversation, service.post);
    const turns = conversations.reduce((n, c) => n + c.sessions.reduce((m, s) => m + s.turns.length, 0), 0);
    console.log(`ingested ${conversations.length} conversations (${turns} turns) in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    await caughtUp(service.db);
    console.log(`read models and search index caught up after ${((Date.now() - started) / 1000).toFixed(1)} s`);
    const latencies: number[] = [];
    const lines: string[] = [];
    for (const [label, split] of [
      ['dev', DEV],
      ['held-out', HELD_OUT],
    ] as const) {
      const scores: QuestionScore[] = [];
      for (const conversation of conversations.filter((c) => split.includes(c.sampleId))) {
        scores.push(...(await askQuestions(service.post, conversation, conversation.sampleId, latencies)));
      }
      lines.push(...report(label, scores));
    }
    console.log(lines.join('\n'));
    console.log(`search latency (HTTP, k=25): ${summary(latencies)}`);
  } finally {
    await service.close();
  }
}

/** One memory per conversation; each session one batch, recordedAt = the session time. */
async function ingest(conversation: Conversation, post: Post): Promise<void> {
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

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
