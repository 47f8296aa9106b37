import { cachedEmbeddings } from './cached';
import { openAiEmbeddingProvider } from './openai';
import type { EmbeddingProvider } from './port';
import { useLiteProvider } from './use-lite';

/**
 * The configured provider, cached: `EMBEDDINGS_URL` (+ `EMBEDDINGS_MODEL`, optional
 * `EMBEDDINGS_API_KEY`) selects an OpenAI-compatible endpoint, else the offline USE
 * lite model. `EMBEDDINGS=off` disables vectors (BM25 only). `EMBEDDINGS_CACHE_DIR`
 * keeps vectors on disk across runs.
 */
export function embeddingsFromEnv(env: NodeJS.ProcessEnv = process.env): EmbeddingProvider | undefined {
  if (env['EMBEDDINGS'] === 'off') return undefined;
  const url = env['EMBEDDINGS_URL'];
  const base = url
    ? openAiEmbeddingProvider({ url, model: env['EMBEDDINGS_MODEL'] ?? 'text-embedding-3-small', apiKey: env['EMBEDDINGS_API_KEY'] })
    : useLiteProvider();
  return cachedEmbeddings(base, { dir: env['EMBEDDINGS_CACHE_DIR'] || undefined });
}
