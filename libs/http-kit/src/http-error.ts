import { ERROR_STATUS, type ErrorCode, type ErrorDetail, errorBody, httpStatusOf, zodIssuesToDetails } from '@memotrace/contracts';
import type { DomainError, DomainErrorCode } from '@memotrace/domain';
import type { z } from 'zod';

/** An error with its HTTP status and contract code. */
export class HttpError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: ErrorDetail[] | Record<string, unknown>,
  ) {
    super(message);
    this.status = httpStatusOf(code);
  }

  body() {
    return errorBody(this.code, this.message, Array.isArray(this.details) ? this.details : undefined);
  }
}

/**
 * The HTTP status of a domain error code: the domain knows codes, the HTTP contract
 * (contracts/src/errors.ts) gives each its status. Compiles only while every `DomainErrorCode`
 * is a code of the contract: a new domain code must be added there first.
 */
export function httpStatusOfDomainError(code: DomainErrorCode): number {
  return ERROR_STATUS[code];
}

/** Where a domain error is in a commands batch, from its details: `commands.3.validTo`. */
function batchPath(error: DomainError): string {
  const { commandIndex, field } = error;
  return [commandIndex !== undefined ? `commands.${commandIndex}` : undefined, field].filter((p) => p !== undefined).join('.');
}

/**
 * A domain error as the HTTP error it answers: same code (so same contract status as
 * `httpStatusOfDomainError`), located at `path` (default: in the commands batch).
 */
export function domainHttpError(
  error: DomainError,
  at: { path: string; message: string } = { path: batchPath(error), message: error.message },
): HttpError {
  return new HttpError(error.code, at.message, [{ path: at.path, message: at.message }]);
}

/** Bad input that is the body as a whole (not JSON, not UTF-8...): its detail has the empty path. */
export function invalidBody(message: string): HttpError {
  return new HttpError('INVALID_REQUEST', message, [{ path: '', message }]);
}

export function payloadTooLarge(): HttpError {
  return new HttpError('PAYLOAD_TOO_LARGE', 'request body exceeds 8 MiB');
}

/** Parses with a zod schema at the edge; bad input is 400 INVALID_REQUEST with per-field details. */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown, what: string): z.output<S> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new HttpError('INVALID_REQUEST', `invalid ${what}`, zodIssuesToDetails(parsed.error));
  return parsed.data;
}
