import { z } from 'zod';

/**
 * Error codes of the HTTP contract (SPEC §3.1, §4) and their HTTP statuses: the codes of rule
 * violations (the domain's `DomainErrorCode`s: libs/http-kit checks at compile time that each is
 * here), then the edge's own. Contracts import no project, the domain included.
 */
export const ERROR_STATUS = {
  INVALID_REQUEST: 400,
  UNKNOWN_ENTITY: 404,
  UNKNOWN_FACT: 404,
  UNKNOWN_EVENT: 404,
  /** A read of a mention the memory does not have at the read's record time (SPEC §5.2 names the code). */
  UNKNOWN_MENTION: 404,
  /** A read of a memory that has no accepted command (SPEC §5.0); writes create the memory. */
  UNKNOWN_MEMORY: 404,
  FACT_NOT_OPEN: 409,
  FACT_CONFLICT: 409,
  INVALID_INTERVAL: 409,
  RECORD_TIME_REGRESSION: 409,
  MENTION_CONFLICT: 409,
  MEMORY_NOT_EMPTY: 409,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  TIMEOUT: 408,
  PAYLOAD_TOO_LARGE: 413,
  INTERNAL: 500,
  /** `extraction: "sync"` turns whose extractor failed or timed out: nothing was written (SPEC §5.1). */
  EXTRACTION_FAILED: 502,
  NOT_READY: 503,
  /** A memory whose search index is larger than the process keeps in memory (SEARCH_CACHE_VERSIONS). */
  SEARCH_TOO_LARGE: 503,
  /** A memory whose log is longer than the write side folds to decide its commands (STATE_CACHE_RECORDS): nothing was written. */
  MEMORY_TOO_LARGE: 503,
  /** The database does not answer (restarting, failing over, unreachable): nothing was written; retry after `Retry-After`. */
  DATABASE_UNAVAILABLE: 503,
  /** The search index (OpenSearch) does not answer: search cannot rank now; writes are unaffected; retry after `Retry-After`. */
  SEARCH_UNAVAILABLE: 503,
  /** The database's disk is full: nothing was written; writes succeed again once there is space. */
  STORAGE_FULL: 507,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;
export const ERROR_CODES = Object.keys(ERROR_STATUS) as ErrorCode[];
export const errorCode = z.enum(ERROR_CODES as [ErrorCode, ...ErrorCode[]]);

/** One per-field problem; `path` is dotted (`commands.0.validTo`), `""` for the root. */
export const errorDetail = z.strictObject({ path: z.string(), message: z.string() });
export type ErrorDetail = z.output<typeof errorDetail>;

export const errorResponse = z.strictObject({
  error: z.strictObject({
    code: errorCode,
    message: z.string(),
    details: z.array(errorDetail).optional(),
  }),
});
export type ErrorResponse = z.output<typeof errorResponse>;

export function httpStatusOf(code: ErrorCode): number {
  return ERROR_STATUS[code];
}

export function errorBody(code: ErrorCode, message: string, details?: ErrorDetail[]): ErrorResponse {
  return details === undefined ? { error: { code, message } } : { error: { code, message, details } };
}

type Issue = z.core.$ZodIssue;

// A missing field says so (zod's own text is "Invalid input: expected string, received undefined").
z.config({ customError: (issue) => (issue.code === 'invalid_type' && issue.input === undefined ? 'required' : undefined) });

function joinPath(base: readonly PropertyKey[], rest: readonly PropertyKey[] = []): string {
  return [...base, ...rest].map((p) => String(p)).join('.');
}

/** For a union, the branches whose input had the right shape (not a type/value mismatch at the union itself). */
function relevantBranches(branches: Issue[][]): Issue[][] {
  return branches.filter((issues) => !issues.some((i) => i.path.length === 0 && (i.code === 'invalid_type' || i.code === 'invalid_value')));
}

function flatten(issue: Issue, prefix: readonly PropertyKey[], out: ErrorDetail[]): void {
  const path = [...prefix, ...issue.path];
  if (issue.code === 'unrecognized_keys') {
    for (const key of issue.keys) out.push({ path: joinPath(path, [key]), message: 'unknown field' });
    return;
  }
  if (issue.code === 'invalid_union' && issue.errors.length > 0) {
    const relevant = relevantBranches(issue.errors);
    if (relevant.length === 1) {
      for (const sub of relevant[0]!) flatten(sub, path, out);
      return;
    }
  }
  out.push({ path: joinPath(path), message: issue.message });
}

/**
 * Per-field details of a zod error: `[{path: "commands.0.validTo", message}]`.
 * Unknown fields get one detail each; a union failure is reported from the branch
 * the input was meant for when that is unambiguous.
 */
export function zodIssuesToDetails(error: z.ZodError | { issues: Issue[] }): ErrorDetail[] {
  const out: ErrorDetail[] = [];
  for (const issue of error.issues) flatten(issue, [], out);
  return capDetails(out);
}

/** Enough to fix a request; a hostile body (200,000 unknown keys) must not get a 10 MB answer. */
export const MAX_ERROR_DETAILS = 100;

export function capDetails(details: ErrorDetail[]): ErrorDetail[] {
  if (details.length <= MAX_ERROR_DETAILS) return details;
  const more = details.length - MAX_ERROR_DETAILS;
  return [...details.slice(0, MAX_ERROR_DETAILS), { path: '', message: `and ${more} more problem${more === 1 ? '' : 's'} not listed` }];
}

/** 400 INVALID_REQUEST body for a zod error. */
export function invalidRequest(error: z.ZodError, message = 'invalid request'): ErrorResponse {
  return errorBody('INVALID_REQUEST', message, zodIssuesToDetails(error));
}

export type Validated<T> = { ok: true; value: T } | { ok: false; error: ErrorResponse };

/** Parses `input` with `schema`; on failure, the 400 INVALID_REQUEST body with per-field details. */
export function validate<S extends z.ZodType>(schema: S, input: unknown, message = 'invalid request'): Validated<z.output<S>> {
  const parsed = schema.safeParse(input);
  return parsed.success ? { ok: true, value: parsed.data } : { ok: false, error: invalidRequest(parsed.error, message) };
}
