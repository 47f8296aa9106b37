import type { Instant } from '@memotrace/domain';
import type { Interval } from './intervals';

/** What the index holds. `entity` docs only carry names for rendering fact text; searches never return them. */
export type IndexedKind = 'fact' | 'event' | 'episode' | 'mention' | 'entity';
export type SearchableKind = Exclude<IndexedKind, 'entity'>;
export const SEARCHABLE_KINDS: readonly SearchableKind[] = ['event', 'fact', 'mention', 'episode'];

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
}

/** A ranked hit: which item, how it scored. */
export interface ScoredItem {
  itemKey: string;
  kind: SearchableKind;
  itemId: string;
  score: number;
}

/** The bitemporal cut of a query (SPEC 3.2). */
export interface SearchCut {
  validAt: Instant | '*';
  recordedAt: Instant;
}

export const VECTOR_DIMENSION = 512;

/**
 * Refuses an embedding model whose vectors the index's `knn_vector` field cannot hold: the
 * index would silently keep such items without a vector and kNN would find nothing.
 */
export function assertIndexableVectors(model: { model: string; dimension?: number } | undefined): void {
  if (model?.dimension !== undefined && model.dimension !== VECTOR_DIMENSION)
    throw new Error(`the OpenSearch index holds ${VECTOR_DIMENSION}-d vectors, the embedding model ${model.model} gives ${model.dimension}-d: use EMBEDDINGS=use-lite (or off) with OPENSEARCH_URL`);
}

/** BM25 with the embedded backend's parameters (services/query/src/search/bm25.ts: b 0.3 suits short dialog turns). */
export const ITEM_SIMILARITY = { memotrace_bm25: { type: 'BM25', k1: 1.2, b: 0.3 } } as const;

/** Field mapping: BM25 on text, lucene HNSW cosine on vector, date ranges for the cut. */
export const ITEM_MAPPINGS = {
  dynamic: 'strict',
  properties: {
    memoryId: { type: 'keyword' },
    itemKey: { type: 'keyword' },
    kind: { type: 'keyword' },
    itemId: { type: 'keyword' },
    text: { type: 'text', analyzer: 'english', similarity: 'memotrace_bm25' },
    vector: {
      type: 'knn_vector',
      dimension: VECTOR_DIMENSION,
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
  },
} as const;
