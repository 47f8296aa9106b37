import type { NameSimilarity, RulesExtractorOptions } from '@memotrace/extraction';
import { type EmbeddingProvider, dot } from '@memotrace/search-index';

/**
 * The rules extractor's name similarity from an embedding model: the cosine of two names' vectors,
 * measured from the model's floor (the similarity of unrelated texts), in [0, 1]. Each extraction gets
 * its own table of the names it compared; the provider's own cache (by text hash, shared with search
 * questions) keeps their vectors, and an erasure does not evict them (docs/erasure.md says so). A model
 * that fails fails the extraction (sync: 502; async: retried), so
 * the same turns never derive differently because the model was away.
 */
export function nameSimilarity(provider: EmbeddingProvider): Required<Pick<RulesExtractorOptions, 'similarity' | 'similarityModel'>> {
  const floor = provider.cosineFloor ?? 0;
  return {
    similarityModel: provider.model,
    similarity: (): NameSimilarity => {
      const vectors = new Map<string, Float32Array>();
      return async (name, others) => {
        const missing = [...new Set([name, ...others])].filter((n) => !vectors.has(n));
        if (missing.length > 0) (await provider.embed(missing)).forEach((v, i) => vectors.set(missing[i]!, v));
        const own = vectors.get(name)!;
        return others.map((other) => Math.min(1, Math.max(0, (dot(own, vectors.get(other)!) - floor) / (1 - floor))));
      };
    },
  };
}
