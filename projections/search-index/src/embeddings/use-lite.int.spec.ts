import { dot } from './port';
import { useLiteProvider } from './use-lite';

/** The offline default model: its weights come from the installed package, never the network. */
describe('useLiteProvider', () => {
  const realFetch = globalThis.fetch;
  beforeAll(() => {
    globalThis.fetch = (() => Promise.reject(new Error('network is off in this test'))) as typeof fetch;
  });
  afterAll(() => {
    globalThis.fetch = realFetch;
  });

  it('embeds offline into 512-d unit vectors, similar texts closer than unrelated ones', async () => {
    const [cat, kitten, stocks] = await useLiteProvider().embed([
      'The cat sleeps on the sofa',
      'A kitten is napping on the couch',
      'Quarterly stock market earnings report',
    ]);
    expect(cat).toHaveLength(512);
    expect(dot(cat!, cat!)).toBeCloseTo(1, 4);
    expect(dot(cat!, kitten!)).toBeGreaterThan(dot(cat!, stocks!));
  });
});
