/** Domain rule violations; the edge maps `status` and `code` to the HTTP error body. */
export type DomainErrorCode =
  | 'INVALID_REQUEST'
  | 'UNKNOWN_ENTITY'
  | 'UNKNOWN_FACT'
  | 'UNKNOWN_EVENT'
  | 'FACT_NOT_OPEN'
  | 'FACT_CONFLICT'
  | 'INVALID_INTERVAL'
  | 'RECORD_TIME_REGRESSION'
  | 'MENTION_CONFLICT'
  | 'MEMORY_NOT_EMPTY';

/** HTTP status of each domain error (the contract adds the edge's own codes). */
export const DOMAIN_ERROR_STATUS = {
  INVALID_REQUEST: 400,
  UNKNOWN_ENTITY: 404,
  UNKNOWN_FACT: 404,
  UNKNOWN_EVENT: 404,
  FACT_NOT_OPEN: 409,
  FACT_CONFLICT: 409,
  INVALID_INTERVAL: 409,
  RECORD_TIME_REGRESSION: 409,
  MENTION_CONFLICT: 409,
  MEMORY_NOT_EMPTY: 409,
} as const satisfies Record<DomainErrorCode, number>;

export class DomainError extends Error {
  readonly status: number;
  constructor(
    readonly code: DomainErrorCode,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'DomainError';
    this.status = DOMAIN_ERROR_STATUS[code];
  }

  /** The same error, located at command `index` of its batch. */
  at(index: number): DomainError {
    return new DomainError(this.code, `commands[${index}]: ${this.message}`, { ...this.details, commandIndex: index });
  }
}
