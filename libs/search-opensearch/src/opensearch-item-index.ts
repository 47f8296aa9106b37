import { createHash } from 'node:crypto';
import type { Instant, ItemKind } from '@memotrace/domain';
import { Client } from '@opensearch-project/opensearch';
import { cutFilter } from './cut-filter';
import {
  DEFAULT_ITEM_INDEX,
  ERASED_MAPPING,
  ITEM_SIMILARITY,
  VECTOR_DIMENSION,
  type IndexedKind,
  type ScoredItem,
  type SearchCut,
  type SearchDoc,
  itemMappings,
} from './documents';
import { type Interval } from './intervals';

export interface OpenSearchItemIndexOptions {
  /** e.g. `http://127.0.0.1:9200` (OPENSEARCH_URL). */
  url: string;
  /** One index per deployment and vector space (default `memotrace-items`; `itemIndexFor`). */
  index?: string;
  shards?: number;
}

/**
 * The search index in OpenSearch: ONE index per deployment, every query filtered by
 * `memoryId` (and routed by it, so a memory's items share a shard). An index per
 * memory would put one shard, one HNSW graph and one mapping per memory into the
 * cluster state; thousands of small memories (one per conversation in LoCoMo) would
 * exhaust a node long before the data does.
 */
export class OpenSearchItemIndex {
  readonly client: Client;
  readonly index: string;
  private readonly shards: number;

  constructor(options: OpenSearchItemIndexOptions) {
    this.client = new Client({ node: options.url });
    this.index = options.index ?? DEFAULT_ITEM_INDEX;
    this.shards = options.shards ?? 1;
  }

  /**
   * Creates the index, for vectors of `dimension`, if it is missing (idempotent); refuses an
   * existing index made for another dimension (its vectors could never be written or searched).
   * An index made before erasure gets the `erased` field.
   */
  async ensureIndex(dimension = VECTOR_DIMENSION): Promise<void> {
    const exists = await this.client.indices.exists({ index: this.index });
    if (exists.body === true) {
      const held = await this.vectorDimension();
      if (held !== undefined && held !== dimension)
        throw new Error(
          `OpenSearch index ${this.index} holds ${held}-d vectors, the embedding model gives ${dimension}-d: drop it or name another index`,
        );
      await this.client.indices.putMapping({ index: this.index, body: { properties: { erased: ERASED_MAPPING } } });
      return;
    }
    try {
      await this.client.indices.create({
        index: this.index,
        body: {
          settings: {
            index: {
              knn: true,
              number_of_shards: this.shards,
              number_of_replicas: 0,
              similarity: ITEM_SIMILARITY as unknown as Record<string, never>,
            },
          },
          mappings: itemMappings(dimension) as unknown as Record<string, never>,
        },
      });
    } catch (error) {
      if (!isAlreadyExists(error)) throw error;
    }
  }

  /** The `knn_vector` dimension of the existing index. */
  async vectorDimension(): Promise<number | undefined> {
    const { body } = await this.client.indices.getMapping({ index: this.index });
    const mapping = Object.values(body as Record<string, { mappings?: { properties?: { vector?: { dimension?: number } } } }>)[0];
    return mapping?.mappings?.properties?.vector?.dimension;
  }

  async dropIndex(): Promise<void> {
    await this.client.indices.delete({ index: this.index, ignore_unavailable: true });
  }

  /** Writes whole documents (keyed by memoryId + itemKey: re-sending one overwrites it). Visible to searches on return unless `refresh: false`. */
  async upsert(docs: readonly SearchDoc[], options: { refresh?: boolean } = {}): Promise<void> {
    if (docs.length === 0) return;
    const body: Record<string, unknown>[] = [];
    for (const doc of docs) {
      body.push({ index: { _index: this.index, _id: docId(doc.memoryId, doc.itemKey), routing: doc.memoryId } });
      body.push(toSource(doc));
    }
    const response = await this.client.bulk({ body, refresh: options.refresh !== false });
    if (response.body.errors) {
      const failed = response.body.items.map((item) => Object.values(item)[0]).find((r) => r?.error);
      throw new Error(`OpenSearch bulk write failed: ${JSON.stringify(failed?.error)}`);
    }
  }

  /** Deletes documents of the memory by item key (one not there is no error). Gone from searches on return. */
  async remove(memoryId: string, itemKeys: readonly string[]): Promise<void> {
    if (itemKeys.length === 0) return;
    const body = itemKeys.map((key) => ({ delete: { _index: this.index, _id: docId(memoryId, key), routing: memoryId } }));
    const response = await this.client.bulk({ body, refresh: true });
    if (response.body.errors) {
      const failed = response.body.items.map((item) => Object.values(item)[0]).find((r) => r?.error);
      if (failed) throw new Error(`OpenSearch bulk delete failed: ${JSON.stringify(failed.error)}`);
    }
  }

  /** Closes an item's record interval at `at` (the version stops being believed then). */
  async closeRecordInterval(memoryId: string, itemKey: string, at: Instant, closedPosition: number): Promise<void> {
    const [doc] = await this.get(memoryId, [itemKey]);
    if (!doc) throw new Error(`no indexed item ${itemKey} in memory ${memoryId}`);
    const recorded = doc.recorded.flatMap((i): Interval[] => (i.from >= at ? [] : [{ from: i.from, to: i.to === null || i.to > at ? at : i.to }]));
    await this.upsert([{ ...doc, recorded, recordedTo: at, closedPosition }]);
  }

  async get(memoryId: string, itemKeys: readonly string[]): Promise<SearchDoc[]> {
    if (itemKeys.length === 0) return [];
    const response = await this.client.mget({
      index: this.index,
      routing: memoryId,
      body: { ids: itemKeys.map((key) => docId(memoryId, key)) },
    });
    return (response.body.docs as { found?: boolean; _source?: unknown }[]).filter((d) => d.found).map((d) => fromSource(d._source as Source));
  }

  /** Every doc of the memory matching the term filters (the projection's working set). */
  async find(
    memoryId: string,
    where: { kind: IndexedKind; field: 'itemId' | 'includesFacts' | 'events'; values: readonly string[] },
  ): Promise<SearchDoc[]> {
    if (where.values.length === 0) return [];
    const docs: SearchDoc[] = [];
    const pageSize = 1000;
    let searchAfter: unknown[] | undefined;
    for (;;) {
      const body: Record<string, unknown> = {
        size: pageSize,
        query: { bool: { filter: [{ term: { memoryId } }, { term: { kind: where.kind } }, { terms: { [where.field]: [...where.values] } }] } },
        sort: [{ itemKey: 'asc' }],
        ...(searchAfter ? { search_after: searchAfter } : {}),
      };
      const hits = await this.rawSearch(body, memoryId);
      docs.push(...hits.map((h) => fromSource(h._source)));
      if (hits.length < pageSize) return docs;
      searchAfter = hits[hits.length - 1]!.sort;
    }
  }

  /** BM25 over `text`, only among the items the cut shows. */
  async bm25(memoryId: string, text: string, cut: SearchCut, k: number, kinds?: readonly ItemKind[]): Promise<ScoredItem[]> {
    const hits = await this.rawSearch(
      {
        size: k,
        ...SCORED_FIELDS,
        query: { bool: { must: [{ match: { text: { query: text } } }], filter: cutFilter(memoryId, cut, kinds) } },
      },
      memoryId,
    );
    return hits.map(toScored);
  }

  /** Approximate k-NN (lucene HNSW, cosine) with the cut as the k-NN query's own filter. Scores are (1 + cos) / 2. */
  async knn(memoryId: string, vector: readonly number[], cut: SearchCut, k: number, kinds?: readonly ItemKind[]): Promise<ScoredItem[]> {
    const hits = await this.rawSearch(
      {
        size: k,
        ...SCORED_FIELDS,
        query: { knn: { vector: { vector: [...vector], k, filter: { bool: { filter: cutFilter(memoryId, cut, kinds) } } } } },
      },
      memoryId,
    );
    return hits.map(toScored);
  }

  /** Every item the cut shows (filter only, no ranking), as `kind:itemId` sorted; for checks and small memories. */
  async visible(memoryId: string, cut: SearchCut, kinds?: readonly ItemKind[]): Promise<string[]> {
    const hits = await this.rawSearch(
      { size: 10000, _source: ['kind', 'itemId'], query: { bool: { filter: cutFilter(memoryId, cut, kinds) } } },
      memoryId,
    );
    return hits.map((h) => `${h._source.kind}:${h._source.itemId}`).sort();
  }

  /** Removes every document of the memory. */
  async deleteMemory(memoryId: string): Promise<void> {
    await this.client.deleteByQuery({ index: this.index, routing: memoryId, refresh: true, body: { query: { term: { memoryId } } } });
  }

  async close(): Promise<void> {
    await this.client.close();
  }

  private async rawSearch(body: Record<string, unknown>, memoryId: string): Promise<Hit[]> {
    const response = await this.client.transport.request({
      method: 'POST',
      path: `/${encodeURIComponent(this.index)}/_search`,
      querystring: { routing: memoryId },
      body,
    });
    return (response.body as { hits: { hits: Hit[] } }).hits.hits;
  }
}

interface Hit {
  _score: number | null;
  _source: Source;
  fields?: Record<string, string[]>;
  sort?: unknown[];
}

/**
 * What a ranked hit is read from: the keyword fields' doc values and no stored field at all. A
 * hit's `_id` and `_routing` are stored fields, kept in compressed blocks with the `_source` (each
 * holding a vector as JSON): loading them for 200 hits costs a k-NN ten times its search.
 */
const SCORED_FIELDS = { _source: false, stored_fields: '_none_', docvalue_fields: ['itemKey', 'kind', 'itemId'] };

type Source = Omit<SearchDoc, 'recorded' | 'valid'> & { recorded: RangeValue[]; valid?: RangeValue | null };

interface RangeValue {
  gte: string;
  lt?: string;
}

/** Ids are hashed: memoryId + itemKey can exceed OpenSearch's 512-byte `_id` limit. */
export function docId(memoryId: string, itemKey: string): string {
  return createHash('sha256').update(memoryId).update('\u0000').update(itemKey).digest('base64url');
}

const toRange = (i: Interval): RangeValue => (i.to === null ? { gte: i.from } : { gte: i.from, lt: i.to });
const fromRange = (r: RangeValue): Interval => ({ from: r.gte, to: r.lt ?? null });

function toSource(doc: SearchDoc): Source {
  const { recorded, valid, ...rest } = doc;
  // An item the cut never shows (e.g. an event whose facts were never all believed) keeps an empty range list.
  return { ...rest, recorded: recorded.map(toRange), valid: valid ? toRange(valid) : null };
}

function fromSource(source: Source): SearchDoc {
  const { recorded, valid, ...rest } = source;
  return { ...rest, recorded: (recorded ?? []).map(fromRange), valid: valid ? fromRange(valid) : null };
}

function toScored(hit: Hit): ScoredItem {
  const field = (name: string) => hit.fields?.[name]?.[0] ?? '';
  return { itemKey: field('itemKey'), kind: field('kind') as ItemKind, itemId: field('itemId'), score: hit._score ?? 0 };
}

function isAlreadyExists(error: unknown): boolean {
  return JSON.stringify((error as { body?: unknown }).body ?? '').includes('resource_already_exists_exception');
}
