import { projectedPosition } from '@memotrace/projection';
import type { EmbeddingProvider } from '@memotrace/search-index';
import { openSearchProjectionName } from '@memotrace/search-opensearch';
import type { Pool } from 'pg';
import { hashedEmbedding } from '../../../../libs/search-opensearch/src/testing/opensearch-test-env';

/** Deterministic 512-d bag-of-words vectors, so the k-NN leg runs in OpenSearch too. */
export const hashedEmbeddings: EmbeddingProvider = {
  model: 'test-hashed-512',
  embed: async (texts) => texts.map((t) => Float32Array.from(hashedEmbedding(t))),
};

/** Until the OpenSearch projection of `index` has the whole log (a write's position counts its memory's events only). */
export async function untilOpenSearchHasTheLog(pool: Pool, index: string, timeoutMs: number): Promise<void> {
  const position = Number((await pool.query('SELECT max(position) AS p FROM mt_events')).rows[0].p);
  const deadline = Date.now() + timeoutMs;
  while ((await projectedPosition(pool, openSearchProjectionName(index))) < position) {
    if (Date.now() > deadline) throw new Error(`the OpenSearch projection did not reach ${position}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
