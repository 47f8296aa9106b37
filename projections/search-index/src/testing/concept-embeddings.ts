import { type EmbeddingProvider, normalize } from '../embeddings/port';

/**
 * A deterministic stand-in for a sentence encoder in tests: one dimension per
 * concept, synonyms share it ("car", "automobile", "vehicle"), so a query can find
 * a text it shares no word with, as a real model would. Counts every text embedded.
 */
export function conceptEmbeddings(concepts: readonly (readonly string[])[]): EmbeddingProvider & { embedded: string[] } {
  const embedded: string[] = [];
  return {
    model: 'test-concepts',
    embedded,
    async embed(texts) {
      embedded.push(...texts);
      return texts.map((text) => {
        const words = text.toLowerCase().match(/\p{L}+/gu) ?? [];
        return normalize([...concepts.map((synonyms) => words.filter((w) => synonyms.includes(w)).length), 0.01]);
      });
    },
  };
}
