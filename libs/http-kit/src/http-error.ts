import { type ErrorCode, type ErrorDetail, errorBody, httpStatusOf, zodIssuesToDetails } from '@memotrace/contracts';
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
