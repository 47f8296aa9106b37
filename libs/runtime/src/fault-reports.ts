import { type DatabaseFault, reportingFaultsOnce } from '@memotrace/postgres';

/** The part of a pino logger a report needs. */
interface Log {
  warn(object: object, message: string): void;
  error?(object: object, message: string): void;
}

/**
 * The error report of a loop that retries in the background (a projector, a watcher, the extraction jobs):
 * its failures at `level`, but a database that is away or full said once per outage, as a warning, not on
 * every retry (reportingFaultsOnce).
 */
export function backgroundErrors(logger: Log, what: string, level: 'warn' | 'error' = 'warn'): (error: Error) => void {
  const said: Record<DatabaseFault, string> = { unavailable: 'the database is unavailable', full: 'the database is full' };
  return reportingFaultsOnce((error, fault) =>
    fault === null
      ? level === 'error' && logger.error
        ? logger.error({ err: error }, what)
        : logger.warn({ err: error }, what)
      : logger.warn({ err: error }, `${what}: ${said[fault]}; retrying until it is back`),
  );
}
