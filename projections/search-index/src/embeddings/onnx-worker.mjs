// Worker of onnxEmbeddingProvider, a thread or an idle child process (plain JavaScript so it runs
// the same under tsx, jest and node; a module because the tokenizer library is ESM only). One ONNX
// Runtime session on one thread, the service keeps the other cores.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Tokenizer } from '@huggingface/tokenizers';
import ort from 'onnxruntime-node';

const { workerPort } = createRequire(import.meta.url)('./worker-port.js');
const port = workerPort();

const { onnx, tokenizer: tokenizerFile, maxTokens } = port.data;
const tokenizer = new Tokenizer(JSON.parse(readFileSync(tokenizerFile, 'utf8')), {});
const session = ort.InferenceSession.create(onnx, { intraOpNumThreads: 1, interOpNumThreads: 1, graphOptimizationLevel: 'all' });

/**
 * One text's inputs: token ids, attention mask and (all-zero) token types, each [1, length].
 * Texts run one at a time, never padded into a batch: the int8 model quantizes activations
 * over the whole input, so padding would shift a text's vector with its batch-mates.
 */
function encode(text) {
  const all = tokenizer.encode(text).ids;
  // Too long: keep the head and the closing [SEP].
  const ids = all.length <= maxTokens ? all : [...all.slice(0, maxTokens - 1), all[all.length - 1]];
  const dims = [1, ids.length];
  return {
    input_ids: new ort.Tensor('int64', BigInt64Array.from(ids, BigInt), dims),
    attention_mask: new ort.Tensor('int64', new BigInt64Array(ids.length).fill(1n), dims),
    token_type_ids: new ort.Tensor('int64', new BigInt64Array(ids.length), dims),
  };
}

/** The text's vector: the [CLS] token's state, the first row of [1, length, width]. */
function cls(states) {
  return Array.from(states.data.subarray(0, states.dims[2]));
}

port.on(async ({ id, texts }) => {
  try {
    const ready = await session;
    const vectors = [];
    for (const text of texts) vectors.push(cls((await ready.run(encode(text)))[ready.outputNames[0]]));
    port.post({ id, vectors });
  } catch (error) {
    port.post({ id, error: String((error && error.stack) || error) });
  }
});
