import { fork } from 'node:child_process';
import { setPriority } from 'node:os';
import { Worker } from 'node:worker_threads';
import { type EmbeddingProvider, embeddedPart, inBatches, normalize } from './port';

type Reply = { id: number; vectors: number[][] } | { id: number; error: string };

/**
 * Where a local model runs: `thread`, a worker thread at the service's own priority (queries
 * wait for their vector); `idle`, a child process at the lowest CPU priority, which the
 * scheduler runs only on CPU that commands, projections and queries leave unused (the
 * search projection's backlog).
 */
export type ModelHost = 'thread' | 'idle';

export interface WorkerModel {
  /** The vector space's name (the cache key). */
  model: string;
  cosineFloor: number;
  dimension: number;
  /** Resolves the worker script and its `workerData` (e.g. after fetching model files). */
  prepare(): Promise<{ file: string; workerData?: unknown }>;
  batch: number;
  host?: ModelHost;
}

/** Nice value of the `idle` host: the lowest priority Linux has. */
const IDLE_NICE = 19;

/** The part of a worker thread and of a child process that the provider uses. */
interface ModelRunner {
  send(message: { id: number; texts: readonly string[] }): void;
  onReply(listener: (reply: Reply) => void): void;
  onFailure(listener: (error: Error) => void): void;
  /** Holds the service open while a call waits, and only then. */
  hold(held: boolean): void;
}

function threadRunner(file: string, workerData: unknown): ModelRunner {
  const worker = new Worker(file, { workerData });
  return {
    send: (message) => worker.postMessage(message),
    onReply: (listener) => worker.on('message', listener),
    onFailure(listener) {
      worker.on('error', listener);
      worker.on('exit', (code) => listener(new Error(`embeddings worker exited with ${code}`)));
    },
    hold: (held) => (held ? worker.ref() : worker.unref()),
  };
}

function idleProcessRunner(file: string, workerData: unknown): ModelRunner {
  // Plain JavaScript scripts: no loader flags (the service's tsx, heap limit) are passed on.
  // `workerData` (model file paths) goes as the one argument, which worker-port.js reads.
  const child = fork(file, [JSON.stringify(workerData ?? null)], {
    execArgv: [],
    serialization: 'advanced',
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  try {
    setPriority(child.pid!, IDLE_NICE);
  } catch {
    // A platform without priorities still embeds, only without yielding the CPU.
  }
  return {
    send: (message) => child.send(message),
    onReply: (listener) => child.on('message', listener),
    onFailure(listener) {
      child.on('error', listener);
      child.on('exit', (code, signal) => listener(new Error(`embeddings process exited with ${signal ?? code}`)));
    },
    hold(held) {
      if (held) {
        child.ref();
        child.channel?.ref();
      } else {
        child.unref();
        child.channel?.unref();
      }
    },
  };
}

/**
 * An embedding model run off the event loop (inference runs each batch synchronously and
 * must not stall commands and queries), on the given host. The runner starts on first use
 * (the model costs memory only once needed) and holds the process open only while a call
 * waits; a failure rejects every waiting call, so callers can fall back to BM25, and the
 * next call starts a fresh runner.
 */
export function workerEmbeddingProvider({ model, cosineFloor, dimension, prepare, batch, host = 'thread' }: WorkerModel): EmbeddingProvider {
  let runner: Promise<ModelRunner> | undefined;
  let nextId = 0;
  const pending = new Map<number, { resolve(vectors: number[][]): void; reject(error: Error): void }>();
  const failAll = (error: Error) => {
    for (const call of pending.values()) call.reject(error);
    pending.clear();
    runner = undefined;
  };
  const start = async () => {
    const { file, workerData } = await prepare();
    const started = host === 'idle' ? idleProcessRunner(file, workerData) : threadRunner(file, workerData);
    started.onReply((reply) => {
      const call = pending.get(reply.id);
      pending.delete(reply.id);
      if (pending.size === 0) started.hold(false);
      if ('error' in reply) call?.reject(new Error(reply.error));
      else call?.resolve(reply.vectors);
    });
    started.onFailure(failAll);
    return started;
  };
  const embedBatch = (texts: readonly string[]) =>
    new Promise<number[][]>((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve, reject });
      runner ??= start();
      runner.then(
        (ready) => {
          ready.hold(true);
          ready.send({ id, texts });
        },
        (error: Error) => {
          runner = undefined;
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
