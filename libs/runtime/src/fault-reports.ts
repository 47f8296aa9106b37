import { type DatabaseFault, databaseFault } from '@memotrace/postgres';

/** The part of a pino logger a report needs. */
interface Log {
  warn(object: object, message: string): void;
  error?(object: object, message: string): void;
}

/** How long an outage report stays said: a longer one is said again, so a log read later still shows it. */
const REPEAT_MS = 60_000;

const SAID: Record<DatabaseFault, string> = { unavailable: 'the database is unavailable', full: 'the database is full' };

/**
 * The error report of a loop that retries in the background (a projector, a watcher, the extraction jobs):
 * its failures at `level`, but a database that is away or full said once per outage, as a warning, not on
 * every retry: the same fault again only after REPEAT_MS; any other error is reported as it comes.
 */
export function backgroundErrors(logger: Log, what: string, level: 'warn' | 'error' = 'warn'): (error: Error) => void {
  let said: { fault: DatabaseFault; at: number } | null = null;
  return (error) => {
    const fault = databaseFault(error);
    if (fault !== null && said !== null && said.fault === fault && Date.now() - said.at < REPEAT_MS) return;
    said = fault === null ? null : { fault, at: Date.now() };
    if (fault !== null) logger.warn({ err: error }, `${what}: ${SAID[fault]}; retrying until it is back`);
    else if (level === 'error' && logger.error) logger.error({ err: error }, what);
    else logger.warn({ err: error }, what);
  };
}
