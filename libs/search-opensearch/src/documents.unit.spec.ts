import { DEFAULT_ITEM_INDEX, VECTOR_DIMENSION, itemIndexFor, itemMappings } from './documents';
import { OPENSEARCH_PROJECTION, openSearchProjectionName } from './search-projection';

describe('one index per vector space', () => {
  it('keeps the default index for the default model and for BM25 only', () => {
    expect(itemIndexFor(undefined, 'use-lite-512')).toBe(DEFAULT_ITEM_INDEX);
    expect(itemIndexFor('use-lite-512', 'use-lite-512')).toBe('memotrace-items');
    expect(openSearchProjectionName(DEFAULT_ITEM_INDEX)).toBe(OPENSEARCH_PROJECTION);
  });

  it('gives another model an index (and a checkpoint) of its own, named in the characters OpenSearch allows', () => {
    expect(itemIndexFor('bge-small-en-v1.5-q', 'use-lite-512')).toBe('memotrace-items-bge-small-en-v1.5-q');
    expect(itemIndexFor('openai:Text Embedding/3', 'use-lite-512')).toBe('memotrace-items-openai-text-embedding-3');
    expect(openSearchProjectionName('memotrace-items-bge-small-en-v1.5-q')).toBe('search-opensearch:memotrace-items-bge-small-en-v1.5-q');
  });

  it("maps the vector field at the model's dimension", () => {
    expect(itemMappings(VECTOR_DIMENSION).properties.vector.dimension).toBe(512);
    expect(itemMappings(384).properties.vector.dimension).toBe(384);
  });
});
