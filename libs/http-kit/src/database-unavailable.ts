import { HttpError } from './http-error';

/**
 * What the service's stores say of an error (the service passes its classifier): the database is away
 * (restarting, failing over, unreachable) or full, or the search index (OpenSearch) is away. A request that
 * failed so answers with a code of its own and a `Retry-After`, never 500: nothing was written, and the caller
 * retries (commands carry their ids).
 */
export type StorageFault = 'unavailable' | 'full' | 'search-unavailable';

/** What a request a store could not serve answers, and after how many seconds a caller tries again. */
export interface Unavailable {
  error: HttpError;
  retryAfterSeconds: number;
  /** The store, as the log names it. */
  store: string;
}

/** A restart or a failover takes seconds; freeing disk space takes an operator. */
export function unavailableAnswer(fault: StorageFault): Unavailable {
  switch (fault) {
    case 'full':
      return {
        error: new HttpError('STORAGE_FULL', 'the database has no space left to write: nothing was written'),
        retryAfterSeconds: 30,
        store: 'database',
      };
    case 'unavailable':
      return {
        error: new HttpError('DATABASE_UNAVAILABLE', 'the database is not reachable: nothing was written; retry shortly'),
        retryAfterSeconds: 2,
        store: 'database',
      };
    case 'search-unavailable':
      return {
        error: new HttpError(
          'SEARCH_UNAVAILABLE',
          'the search index (OpenSearch) is not reachable: search cannot answer now, writes are unaffected; retry shortly',
        ),
        retryAfterSeconds: 5,
        store: 'search index',
      };
  }
}
