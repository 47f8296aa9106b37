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

/** When an outage is to be said: at its first report, and again every REPEAT_MS while the same one lasts. */
export class OutageNotice {
  private said: { what: string; at: number } | null = null;

  /** Whether a report of outage `what` is to be said now (it then counts as said). */
  due(what: string): boolean {
    const now = Date.now();
    if (this.said !== null && this.said.what === what && now - this.said.at < REPEAT_MS) return false;
    this.said = { what, at: now };
    return true;
  }

  /** Whether an outage was said and not yet ended. */
  get open(): boolean {
    return this.said !== null;
  }

  /** Ends the outage; whether one had been said. */
  end(): boolean {
    const was = this.said !== null;
    this.said = null;
    return was;
  }
}

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
  const notice = new OutageNotice();
  return (error) => {
    const fault = serviceFault(error);
    if (fault !== null) {
      if (notice.due(fault)) logger.warn({ err: error }, `${what}: ${SAID[fault]}; retrying until it is back`);
      return;
    }
    notice.end();
    if (level === 'error' && logger.error) logger.error({ err: error }, what);
    else logger.warn({ err: error }, what);
  };
}
