import pg from 'pg';

const INT8_OID = 20;
const INT8_ARRAY_OID = 1016;

/** int8 → number; positions and revisions stay far below 2^53, anything above is a bug worth a loud error. */
function parseInt8(value: string): number {
  const parsed = Number(value);
  if (!Number.isSafeInteger(parsed)) throw new RangeError(`int8 value ${value} does not fit in a JS number`);
  return parsed;
}

type TextParser = (oid: number, format: 'text') => (value: string) => unknown;
const defaultInt8Array = (pg.types.getTypeParser as TextParser)(INT8_ARRAY_OID, 'text');
const parseInt8Array = (value: string): (number | null)[] =>
  (defaultInt8Array(value) as (string | null)[]).map((v) => (v === null ? null : parseInt8(v)));

const TEXT_ARRAY_OID = 1009;
const defaultTextArray = (pg.types.getTypeParser as TextParser)(TEXT_ARRAY_OID, 'text');
/** text[] text whose elements are all unquoted and non-empty (what pg sends for e.g. the log's tags). */
const PLAIN_TEXT_ARRAY = /^\{[^",\\{}\s]+(?:,[^",\\{}\s]+)*\}$/;
/**
 * Plain text[] split directly, faster than the general parser on a log read; an unquoted
 * NULL is the null element. Anything else goes to pg's parser.
 */
const parseTextArray = (value: string): unknown => {
  if (value === '{}') return [];
  if (!PLAIN_TEXT_ARRAY.test(value)) return defaultTextArray(value);
  return value
    .slice(1, -1)
    .split(',')
    .map((element) => (element === 'NULL' ? null : element));
};

/**
 * Per-pool type parsers (instead of mutating the global `pg.types`) so other
 * libraries in the process (e.g. TypeORM) keep their default bigint-as-string.
 * timestamptz keeps pg's default parsing.
 */
export const memotraceTypes: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
    if (format !== 'binary' && oid === INT8_OID) return parseInt8;
    if (format !== 'binary' && oid === INT8_ARRAY_OID) return parseInt8Array;
    if (format !== 'binary' && oid === TEXT_ARRAY_OID) return parseTextArray;
    return pg.types.getTypeParser(oid, format ?? 'text');
  }) as pg.CustomTypesConfig['getTypeParser'],
};

export type PoolOptions = Omit<pg.PoolConfig, 'connectionString'>;

export function createPool(url: string, options: PoolOptions = {}): pg.Pool {
  const pool = new pg.Pool({
    connectionString: url,
    max: 10,
    idleTimeoutMillis: 10_000,
    connectionTimeoutMillis: 10_000,
    types: memotraceTypes,
    ...options,
  });
  // An idle client dying (server restart, DROP DATABASE ... FORCE) emits 'error' on the
  // pool; unhandled it would crash the process. The pool already discards that client.
  pool.on('error', () => undefined);
  // A checked-out client has no 'error' listener of the pool's: a connection lost between two
  // queries (the server stopping) would be an uncaught error. Its next query fails instead, and
  // the pool drops it on release, as it is no longer queryable.
  pool.on('connect', (client) => client.on('error', () => undefined));
  return pool;
}

/**
 * Runs `work` in one transaction on one pooled connection: COMMIT when it resolves,
 * ROLLBACK when it throws. A connection whose ROLLBACK failed is destroyed, not reused.
 */
export async function inTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>, begin = 'BEGIN'): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query(begin);
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch((rollbackError: Error) => (broken = rollbackError));
    throw error;
  } finally {
    client.release(broken);
  }
}
