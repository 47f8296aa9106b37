import { HttpError } from './http-error';

/**
 * What the service's storage says of an error (the service passes its database's classifier): it is away
 * (restarting, failing over, unreachable) or full. A request that failed so answers with a code of its own
 * and a `Retry-After`, never 500: nothing was written, and the caller retries (commands carry their ids).
 */
export type StorageFault = 'unavailable' | 'full';

/** What a request the database could not serve answers, and after how many seconds a caller tries again. */
export interface Unavailable {
  error: HttpError;
  retryAfterSeconds: number;
}

/** A restart or a failover takes seconds; freeing disk space takes an operator. */
export function unavailableAnswer(fault: StorageFault): Unavailable {
  return fault === 'full'
    ? { error: new HttpError('STORAGE_FULL', 'the database has no space left to write: nothing was written'), retryAfterSeconds: 30 }
    : { error: new HttpError('DATABASE_UNAVAILABLE', 'the database is not reachable: nothing was written; retry shortly'), retryAfterSeconds: 2 };
}
