import { embeddingsFromEnv } from './from-env';
import { USE_LITE_MODEL } from './use-lite';

/** Choosing the provider starts no model: every case here is configuration only. */
describe('embeddingsFromEnv', () => {
  it('defaults to the offline USE lite model; EMBEDDINGS=off means BM25 only', () => {
    expect(embeddingsFromEnv({})?.model).toBe(USE_LITE_MODEL);
    expect(embeddingsFromEnv({ EMBEDDINGS: 'use-lite' })?.model).toBe(USE_LITE_MODEL);
    expect(embeddingsFromEnv({ EMBEDDINGS: 'off' })).toBeUndefined();
  });

  it('selects a local ONNX model by name, with its cosine floor', () => {
    const provider = embeddingsFromEnv({ EMBEDDINGS: 'bge-small-en-v1.5', EMBEDDINGS_MODEL_DIR: '/nonexistent' });
    expect(provider?.model).toBe('bge-small-en-v1.5-q');
    expect(provider?.cosineFloor).toBe(0.5);
  });

  it('selects an OpenAI-compatible endpoint by URL', () => {
    expect(embeddingsFromEnv({ EMBEDDINGS_URL: 'http://127.0.0.1:1/v1/embeddings', EMBEDDINGS_MODEL: 'nomic-embed-text' })?.model).toBe(
      'openai:nomic-embed-text',
    );
  });

  it("states an endpoint's vector length when EMBEDDINGS_DIMENSION gives it, and refuses a bad one", () => {
    const url = 'http://127.0.0.1:1/v1/embeddings';
    expect(embeddingsFromEnv({ EMBEDDINGS_URL: url, EMBEDDINGS_DIMENSION: '1536' })?.dimension).toBe(1536);
    expect(embeddingsFromEnv({ EMBEDDINGS_URL: url })?.dimension).toBeUndefined();
    expect(() => embeddingsFromEnv({ EMBEDDINGS_URL: url, EMBEDDINGS_DIMENSION: '12.5' })).toThrow(
      'EMBEDDINGS_DIMENSION=12.5: expected a positive integer',
    );
  });

  it('refuses an unknown model name, listing the choices', () => {
    expect(() => embeddingsFromEnv({ EMBEDDINGS: 'bge-large' })).toThrow('EMBEDDINGS=bge-large: expected off, use-lite or one of bge-small-en-v1.5');
  });
});
