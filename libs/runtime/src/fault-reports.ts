import type { StorageFault } from '@memotrace/http-kit';
import { databaseFault } from '@memotrace/postgres';
import { openSearchUnavailable } from '@memotrace/search-opensearch';

/**
 * What an error says of the service's stores: the search index (OpenSearch) away, the database away or
 * full, or `null` for any other error. The HTTP edge answers a fault 503/507 with a code of its own; a
 * background loop says it once per outage.
 */
export function serviceFault(error: unknown): StorageFault | null {
  // OpenSearch's first: a connection it lost is a socket error as the database's is.
  return openSearchUnavailable(error) ? 'search-unavailable' : databaseFault(error);
}

/** The part of a pino logger a report needs. */
interface Log {
  warn(object: object, message: string): void;
  error?(object: object, message: string): void;
}

/** How long an outage report stays said: a longer one is said again, so a log read later still shows it. */
const REPEAT_MS = 60_000;

const SAID: Record<StorageFault, string> = {
  unavailable: 'the database is unavailable',
  full: 'the database is full',
  'search-unavailable': 'the search index (OpenSearch) is unavailable',
};

/**
 * The error report of a loop that retries in the background (a projector, a watcher, the extraction jobs):
 * its failures at `level`, but a store that is away or full said once per outage, as a warning, not on
 * every retry: the same fault again only after REPEAT_MS; any other error is reported as it comes.
 */
export function backgroundErrors(logger: Log, what: string, level: 'warn' | 'error' = 'warn'): (error: Error) => void {
  let said: { fault: StorageFault; at: number } | null = null;
  return (error) => {
    const fault = serviceFault(error);
    if (fault !== null && said !== null && said.fault === fault && Date.now() - said.at < REPEAT_MS) return;
    said = fault === null ? null : { fault, at: Date.now() };
    if (fault !== null) logger.warn({ err: error }, `${what}: ${SAID[fault]}; retrying until it is back`);
    else if (level === 'error' && logger.error) logger.error({ err: error }, what);
    else logger.warn({ err: error }, what);
  };
}
