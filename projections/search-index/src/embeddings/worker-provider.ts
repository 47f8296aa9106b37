import { Worker } from 'node:worker_threads';
import { type EmbeddingProvider, embeddedPart, inBatches, normalize } from './port';

type Reply = { id: number; vectors: number[][] } | { id: number; error: string };

export interface WorkerModel {
  /** The vector space's name (the cache key). */
  model: string;
  cosineFloor: number;
  dimension: number;
  /** Resolves the worker script and its `workerData` (e.g. after fetching model files). */
  prepare(): Promise<{ file: string; workerData?: unknown }>;
  batch: number;
}

/**
 * An embedding model that runs in a worker thread: inference runs each batch synchronously
 * and must not stall the service's event loop. The worker starts on
 * first use (the model costs memory only once search needs it) and holds the process open
 * only while a call waits; a failure rejects every waiting call, so callers can fall back to
 * BM25, and the next call starts a fresh worker.
 */
export function workerEmbeddingProvider({ model, cosineFloor, dimension, prepare, batch }: WorkerModel): EmbeddingProvider {
  let worker: Promise<Worker> | undefined;
  let nextId = 0;
  const pending = new Map<number, { resolve(vectors: number[][]): void; reject(error: Error): void }>();
  const failAll = (error: Error) => {
    for (const call of pending.values()) call.reject(error);
    pending.clear();
    worker = undefined;
  };
  const start = async () => {
    const { file, workerData } = await prepare();
    const started = new Worker(file, { workerData });
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
      worker.then(
        (ready) => {
          ready.ref(); // kept alive while a call waits, so an idle worker never holds the process open
          ready.postMessage({ id, texts });
        },
        (error: Error) => {
          worker = undefined;
          pending.delete(id);
          reject(error);
        },
      );
    });
  return {
    model,
    cosineFloor,
    dimension,
    async embed(texts) {
      if (texts.length === 0) return [];
      return inBatches(texts.map(embeddedPart), batch, async (part) => (await embedBatch(part)).map(normalize));
    },
  };
}
