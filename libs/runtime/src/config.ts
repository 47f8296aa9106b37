import { type ApiKey, loadApiKeys } from '@memotrace/http-kit';
import { resolve } from 'node:path';
import { getHeapStatistics } from 'node:v8';
import { type KafkaConfig, readKafkaConfig } from './kafka-config';

/** Process configuration, from the environment only (12-factor). */
export interface RuntimeConfig {
  host: string;
  port: number;
  /** Where the embedded PostgreSQL keeps its data (kept across restarts). */
  dataDir: string;
  /** An external PostgreSQL; when absent the process starts an embedded one. */
  databaseUrl: string | undefined;
  /** Optional read replica for query processes. */
  readDatabaseUrl: string | undefined;
  logLevel: string;
  /** API keys (MEMOTRACE_API_KEYS_FILE / MEMOTRACE_API_KEYS); none means unauthenticated, loopback only. */
  apiKeys: ApiKey[];
  /** Kafka command consumer + event relay; undefined (off) unless KAFKA_BROKERS is set. */
  kafka: KafkaConfig | undefined;
  /** OpenSearch search backend (e.g. `http://127.0.0.1:9200`); undefined (embedded search only) unless OPENSEARCH_URL is set. */
  openSearchUrl: string | undefined;
  /** Most item versions the search corpora keep in memory over all memories (SEARCH_CACHE_VERSIONS). */
  searchCacheVersions: number;
  /** How long a search with `minPosition` waits for the search projection's vectors to reach it (SEARCH_INDEX_WAIT_MS). */
  searchIndexWaitMs: number;
  /** Most log records the write side keeps folded over all memories (STATE_CACHE_RECORDS). */
  stateCacheRecords: number;
  /** Milliseconds between retention sweeps of a writing process (RETENTION_SWEEP_MS); 0 turns them off. */
  retentionSweepMs: number;
  /** Milliseconds between background consolidation sweeps of a writing process (CONSOLIDATE_INTERVAL_MS); 0 turns them off. */
  consolidateIntervalMs: number;
  /** Derived commands below this confidence are not appended (EXTRACTION_GATE, in [0, 1]). */
  extractionGate: number;
  /** An extraction that takes longer fails (EXTRACTION_TIMEOUT_MS). */
  extractionTimeoutMs: number;
  /** Milliseconds between polls for async extraction jobs due (EXTRACTION_POLL_MS); 0: only when this process takes async turns. */
  extractionPollMs: number;
  /** A failed async extraction is retried after this many milliseconds, doubling with each failure up to ten minutes (EXTRACTION_RETRY_MS). */
  extractionRetryMs: number;
}

/**
 * Search corpora bound in tests and tools that set no heap: 200,000 versions hold a 100,000-item
 * memory. The service's own default follows its heap (`heapBounds`).
 */
export const DEFAULT_SEARCH_CACHE_VERSIONS = 200_000;
/** The write side's bound where no heap is set: a million records, about 500 MB of heap. */
export const DEFAULT_STATE_CACHE_RECORDS = 1_000_000;

/** What a folded log record (write side) and a search item version (search corpus) cost in the heap, about. */
const BYTES_PER_FOLDED_RECORD = 500;
const BYTES_PER_SEARCH_VERSION = 500;
/** What the service needs besides its caches: its code, pools and requests, and V8's young generation. */
const SERVICE_BASE_BYTES = 128 * 2 ** 20;

/**
 * The in-process caches' default bounds, from the heap limit: of what the service does not need
 * for itself, 55 % for the write side's folded states and an eighth for the search corpora, the
 * rest for what is in flight (pages being folded or loaded, projector batches, request bodies).
 * Neither a large memory nor a burst of searches exhausts the heap: a memory larger than a bound
 * alone gets a 503 of its own, and every other memory keeps being served.
 */
export function heapBounds(heapLimitBytes: number): { stateCacheRecords: number; searchCacheVersions: number } {
  const usable = Math.max(0, heapLimitBytes - SERVICE_BASE_BYTES);
  return {
    stateCacheRecords: Math.max(1000, Math.floor((usable * 0.55) / BYTES_PER_FOLDED_RECORD)),
    searchCacheVersions: Math.max(1000, Math.floor(usable / 8 / BYTES_PER_SEARCH_VERSION)),
  };
}

/**
 * Two seconds: a search right after a write waits at most this long for the vectors of what was
 * written (a turn embeds in tens of milliseconds; a whole conversation's backlog does not, and is
 * then ranked by BM25 until it is embedded).
 */
export const DEFAULT_SEARCH_INDEX_WAIT_MS = 2_000;

/** A minute: a relation's retention is kept to within a minute, and a sweep of memories without due facts reads little. */
export const DEFAULT_RETENTION_SWEEP_MS = 60_000;
export const DEFAULT_CONSOLIDATE_INTERVAL_MS = 600_000;

/** Half sure or better: what the default extractor means by a statement it recognised. */
export const DEFAULT_EXTRACTION_GATE = 0.5;
/** A sync request waits this long for its extractor (an LLM's call included). */
export const DEFAULT_EXTRACTION_TIMEOUT_MS = 30_000;
/** A second: async turns are derived about a second after they are recorded, however busy the process. */
export const DEFAULT_EXTRACTION_POLL_MS = 1_000;
/** Five seconds, then 10, 20, ...: an extractor down for a while is not asked again and again. */
export const DEFAULT_EXTRACTION_RETRY_MS = 5_000;

export function readConfig(env: NodeJS.ProcessEnv = process.env, heapLimitBytes = getHeapStatistics().heap_size_limit): RuntimeConfig {
  const bounds = heapBounds(heapLimitBytes);
  const port = Number(env['PORT'] ?? 8080);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`PORT must be a port number, got ${env['PORT']}`);
  return {
    host: env['HOST'] ?? '127.0.0.1',
    port,
    dataDir: resolve(env['MEMOTRACE_DATA_DIR'] ?? '.memotrace'),
    databaseUrl: nonEmpty(env['DATABASE_URL']),
    readDatabaseUrl: nonEmpty(env['READ_DATABASE_URL']),
    logLevel: env['LOG_LEVEL'] ?? 'info',
    apiKeys: loadApiKeys(env),
    kafka: readKafkaConfig(env),
    openSearchUrl: nonEmpty(env['OPENSEARCH_URL']),
    searchCacheVersions: positiveInteger('SEARCH_CACHE_VERSIONS', env['SEARCH_CACHE_VERSIONS'], bounds.searchCacheVersions),
    searchIndexWaitMs: nonNegativeInteger('SEARCH_INDEX_WAIT_MS', env['SEARCH_INDEX_WAIT_MS'], DEFAULT_SEARCH_INDEX_WAIT_MS),
    stateCacheRecords: positiveInteger('STATE_CACHE_RECORDS', env['STATE_CACHE_RECORDS'], bounds.stateCacheRecords),
    retentionSweepMs: nonNegativeInteger('RETENTION_SWEEP_MS', env['RETENTION_SWEEP_MS'], DEFAULT_RETENTION_SWEEP_MS),
    consolidateIntervalMs: nonNegativeInteger('CONSOLIDATE_INTERVAL_MS', env['CONSOLIDATE_INTERVAL_MS'], DEFAULT_CONSOLIDATE_INTERVAL_MS),
    extractionGate: unitInterval('EXTRACTION_GATE', env['EXTRACTION_GATE'], DEFAULT_EXTRACTION_GATE),
    extractionTimeoutMs: positiveInteger('EXTRACTION_TIMEOUT_MS', env['EXTRACTION_TIMEOUT_MS'], DEFAULT_EXTRACTION_TIMEOUT_MS),
    extractionPollMs: nonNegativeInteger('EXTRACTION_POLL_MS', env['EXTRACTION_POLL_MS'], DEFAULT_EXTRACTION_POLL_MS),
    extractionRetryMs: positiveInteger('EXTRACTION_RETRY_MS', env['EXTRACTION_RETRY_MS'], DEFAULT_EXTRACTION_RETRY_MS),
  };
}

function positiveInteger(name: string, text: string | undefined, fallback: number): number {
  const value = Number(text ?? fallback);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer, got ${text}`);
  return value;
}

function nonNegativeInteger(name: string, text: string | undefined, fallback: number): number {
  const value = Number(text ?? fallback);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a non-negative integer, got ${text}`);
  return value;
}

function unitInterval(name: string, text: string | undefined, fallback: number): number {
  const value = Number(text ?? fallback);
  if (!(value >= 0 && value <= 1)) throw new Error(`${name} must be a number from 0 to 1, got ${text}`);
  return value;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value;
}
