/**
 * Errors that say the database is away or full, not that a request is wrong: a connection refused,
 * reset or cut, a server shutting down or starting up (SQLSTATE class 08, 57P01-57P03, 53300), a
 * pool that cannot connect in time (`unavailable`); a full disk (53100, `full`). Either passes: a
 * restart or a failover takes seconds, freeing disk space takes an operator.
 */
export type DatabaseFault = 'unavailable' | 'full';

const AWAY_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', '57P01', '57P02', '57P03', '53300']);
const AWAY_MESSAGES =
  /^(?:Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Connection ended)/u;
const DISK_FULL = '53100';

type Cause = { code?: unknown; message?: unknown; cause?: unknown; errors?: unknown[] };

/** The fault the error, or one it was caused by, says; `null` for any other error. */
export function databaseFault(error: unknown): DatabaseFault | null {
  // Duck-typed, not `instanceof Error`: a socket's error may come from another realm (a test's VM context).
  for (let e = error as Cause | undefined, depth = 0; typeof e === 'object' && e !== null && depth < 5; e = e.cause as Cause | undefined, depth++) {
    const code = e.code;
    if (code === DISK_FULL) return 'full';
    if ((typeof code === 'string' && (AWAY_CODES.has(code) || code.startsWith('08'))) || AWAY_MESSAGES.test(String(e.message))) return 'unavailable';
    if (Array.isArray(e.errors) && e.errors.length > 0) return databaseFault(e.errors[0]);
  }
  return null;
}
