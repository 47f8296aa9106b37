import { type EmbeddingProvider, embeddedPart, inBatches, normalize } from './port';

export interface OpenAiEmbeddingsOptions {
  /** Base URL of an OpenAI-compatible API, e.g. `http://localhost:11434/v1` (`/embeddings` is appended) or the full `.../v1/embeddings`. */
  url: string;
  model: string;
  apiKey?: string | undefined;
  batchSize?: number;
  /** The vectors' length, when known (`EMBEDDINGS_DIMENSION`): an OpenSearch index is made for it. */
  dimension?: number | undefined;
  fetch?: typeof fetch;
}

/** Any OpenAI-compatible `POST /v1/embeddings` endpoint. */
export function openAiEmbeddingProvider(options: OpenAiEmbeddingsOptions): EmbeddingProvider {
  const endpoint = options.url.replace(/\/+$/, '').endsWith('/embeddings')
    ? options.url.replace(/\/+$/, '')
    : `${options.url.replace(/\/+$/, '')}/embeddings`;
  const doFetch = options.fetch ?? fetch;
  return {
    model: `openai:${options.model}`,
    dimension: options.dimension,
    embed: (texts) =>
      inBatches(texts, options.batchSize ?? 128, async (batch) => {
        const response = await doFetch(endpoint, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}) },
          body: JSON.stringify({ model: options.model, input: batch.map(embeddedPart) }),
        });
        if (!response.ok) throw new Error(`embeddings endpoint ${endpoint} answered ${response.status}: ${(await response.text()).slice(0, 200)}`);
        const body = (await response.json()) as { data?: { index?: number; embedding?: number[] }[] };
        const data = body.data ?? [];
        if (data.length !== batch.length) throw new Error(`embeddings endpoint returned ${data.length} vectors for ${batch.length} texts`);
        // The API may answer out of order; `index` says which input each vector belongs to.
        const ordered = [...data].sort((a, b) => (a.index ?? 0) - (b.index ?? 0));
        return ordered.map((d) => {
          if (!Array.isArray(d.embedding)) throw new Error('embeddings endpoint returned an item without an embedding');
          return normalize(d.embedding);
        });
      }),
  };
}
