import type { Instant, ItemKind } from '@memotrace/domain';
import type { Interval } from './intervals';

/** What the index holds: the search items, and `entity` docs that only carry names for rendering fact text (searches never return them). */
export type IndexedKind = ItemKind | 'entity';

/**
 * One searchable item (a fact version, an event or episode version, a mention).
 * `recorded` is the set of record times at which the cut shows it (SPEC 3.2: a fact
 * version's record interval; an event's, cut down to when all its facts were
 * believed; ...), `valid` its validity (absent: any validAt matches, as for mentions).
 */
export interface SearchDoc {
  memoryId: string;
  /** Unique within the memory, e.g. `fact:<factId>#<position>`. */
  itemKey: string;
  kind: IndexedKind;
  /** The item's own id (`factId`, `eventId`, ...). */
  itemId: string;
  text: string;
  vector?: number[] | null;
  recorded: Interval[];
  valid?: Interval | null;
  recordedFrom: Instant;
  recordedTo: Instant | null;
  occurredAt?: Instant | null;
  /** Log position of the event that created this doc (idempotent re-index). */
  position: number;
  /** Log position of the event that closed its record interval, if any. */
  closedPosition?: number | null;
  /** Links the projection follows: facts of an event, events of an episode, evidence of a fact. */
  includesFacts?: string[];
  events?: string[];
  evidence?: string[];
  /** Kind-specific fields the projection needs back (src/rel/dst, names, ...); not indexed. */
  payload?: Record<string, unknown>;
  /**
   * Its content was erased (SPEC §5.2): a fact or event version kept without text, vector or
   * content, for the rules of the items that include it (an event's facts, an episode's events).
   * Never a hit: the cut filter leaves it out.
   */
  erased?: boolean;
}

/** A ranked hit: which item, how it scored. */
export interface ScoredItem {
  itemKey: string;
  kind: ItemKind;
  itemId: string;
  score: number;
}

/** The bitemporal cut of a query (SPEC 3.2). */
export interface SearchCut {
  validAt: Instant | '*';
  recordedAt: Instant;
}

/** The default model's (USE lite's) vector length, the default index's `knn_vector` dimension. */
export const VECTOR_DIMENSION = 512;

/** The index of the default vector space (USE lite's vectors, or none). */
export const DEFAULT_ITEM_INDEX = 'memotrace-items';

/**
 * The index for an embedding model's vectors: the default one for USE lite (`defaultModel`) or
 * BM25 only, else one of its own (`memotrace-items-<model>`), so vectors of two models (or two
 * dimensions) never share a `knn_vector` field and changing the model re-projects into a new index.
 */
export function itemIndexFor(model: string | undefined, defaultModel: string): string {
  return model === undefined || model === defaultModel
    ? DEFAULT_ITEM_INDEX
    : `${DEFAULT_ITEM_INDEX}-${model.toLowerCase().replace(/[^a-z0-9._-]+/g, '-')}`;
}

/** BM25 with the embedded backend's parameters (services/query/src/search/bm25.ts: b 0.3 suits short dialog turns). */
export const ITEM_SIMILARITY = { memotrace_bm25: { type: 'BM25', k1: 1.2, b: 0.3 } } as const;

/** Field mapping: BM25 on text, lucene HNSW cosine on vector (of `dimension`), date ranges for the cut. */
export const itemMappings = (dimension: number) => ({
  dynamic: 'strict',
  properties: {
    memoryId: { type: 'keyword' },
    itemKey: { type: 'keyword' },
    kind: { type: 'keyword' },
    itemId: { type: 'keyword' },
    text: { type: 'text', analyzer: 'english', similarity: 'memotrace_bm25' },
    vector: {
      type: 'knn_vector',
      dimension,
      method: { name: 'hnsw', engine: 'lucene', space_type: 'cosinesimil', parameters: { m: 16, ef_construction: 100 } },
    },
    recorded: { type: 'date_range', format: 'strict_date_optional_time' },
    valid: { type: 'date_range', format: 'strict_date_optional_time' },
    recordedFrom: { type: 'date' },
    recordedTo: { type: 'date' },
    occurredAt: { type: 'date' },
    position: { type: 'long' },
    closedPosition: { type: 'long' },
    includesFacts: { type: 'keyword' },
    events: { type: 'keyword' },
    evidence: { type: 'keyword' },
    payload: { type: 'object', enabled: false },
    erased: ERASED_MAPPING,
  },
});

/** Added to an index made before erasure (`ensureIndex`): the mapping is strict. */
export const ERASED_MAPPING = { type: 'boolean' } as const;
