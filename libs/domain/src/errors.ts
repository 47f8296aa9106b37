/** Domain rule violations, by code; the edge maps a code to its HTTP status (libs/http-kit). */
export type DomainErrorCode =
  | 'INVALID_REQUEST'
  | 'UNKNOWN_ENTITY'
  | 'UNKNOWN_FACT'
  | 'UNKNOWN_EVENT'
  | 'UNKNOWN_MENTION'
  | 'FACT_NOT_OPEN'
  | 'FACT_CONFLICT'
  | 'INVALID_INTERVAL'
  | 'RECORD_TIME_REGRESSION'
  | 'MENTION_CONFLICT'
  | 'MEMORY_NOT_EMPTY';

/**
 * A rule violation: its `code`, a `message`, and structured `details` (`field`: the command's
 * field at fault; `commandIndex`: its command's index in the batch, set by `at`). An edge that
 * locates the error its own way reads `details` and `problem`, never the message text.
 */
export class DomainError extends Error {
  /** What is wrong: the message without its location in the batch (`commands[i]: `). */
  readonly problem: string;

  constructor(
    readonly code: DomainErrorCode,
    problem: string,
    readonly details: Record<string, unknown> = {},
  ) {
    const index = details['commandIndex'];
    super(typeof index === 'number' ? `commands[${index}]: ${problem}` : problem);
    this.name = 'DomainError';
    this.problem = problem;
  }

  /** The command's index in its batch, once located by `at`. */
  get commandIndex(): number | undefined {
    const index = this.details['commandIndex'];
    return typeof index === 'number' ? index : undefined;
  }

  /** The field of the command at fault, when there is one. */
  get field(): string | undefined {
    const field = this.details['field'];
    return typeof field === 'string' ? field : undefined;
  }

  /** The same error, located at command `index` of its batch (`commands[index]: ` before its problem). */
  at(index: number): DomainError {
    return new DomainError(this.code, this.problem, { ...this.details, commandIndex: index });
  }
}
