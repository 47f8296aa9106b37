import { VECTOR_DIMENSION, assertIndexableVectors } from './documents';

describe('assertIndexableVectors', () => {
  it("accepts no model, a model of the index's dimension, or one whose dimension is known only later", () => {
    expect(() => assertIndexableVectors(undefined)).not.toThrow();
    expect(() => assertIndexableVectors({ model: 'use-lite-512', dimension: VECTOR_DIMENSION })).not.toThrow();
    expect(() => assertIndexableVectors({ model: 'openai:text-embedding-3-small' })).not.toThrow();
  });

  it('refuses a model whose vectors the knn_vector field cannot hold, saying what to do', () => {
    expect(() => assertIndexableVectors({ model: 'bge-small-en-v1.5-q', dimension: 384 })).toThrow(
      'the OpenSearch index holds 512-d vectors, the embedding model bge-small-en-v1.5-q gives 384-d: use EMBEDDINGS=use-lite (or off) with OPENSEARCH_URL',
    );
  });
});
