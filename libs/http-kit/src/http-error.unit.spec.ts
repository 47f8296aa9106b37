import { ERROR_CODES, type ErrorCode } from '@memotrace/contracts';
import { DomainError, type DomainErrorCode } from '@memotrace/domain';
import { domainHttpError, httpStatusOfDomainError } from './http-error';

/** The domain knows error codes only; the HTTP edge answers each with the contract's status. */
describe('domain errors at the HTTP edge', () => {
  // A Record over the union: a domain code missing here (or added to the domain) fails to compile.
  const expected: Record<DomainErrorCode, number> = {
    INVALID_REQUEST: 400,
    UNKNOWN_ENTITY: 404,
    UNKNOWN_FACT: 404,
    UNKNOWN_EVENT: 404,
    UNKNOWN_MENTION: 404,
    FACT_NOT_OPEN: 409,
    FACT_CONFLICT: 409,
    INVALID_INTERVAL: 409,
    RECORD_TIME_REGRESSION: 409,
    MENTION_CONFLICT: 409,
    MEMORY_NOT_EMPTY: 409,
  };

  it('every domain code is a code of the HTTP contract (also checked at compile time)', () => {
    type Missing = Exclude<DomainErrorCode, ErrorCode>;
    const none: [Missing] extends [never] ? true : false = true;
    expect(none).toBe(true);
    for (const code of Object.keys(expected)) expect(ERROR_CODES).toContain(code);
  });

  it.each(Object.entries(expected) as [DomainErrorCode, number][])('%s is HTTP %i', (code, status) => {
    expect(httpStatusOfDomainError(code)).toBe(status);
    expect(domainHttpError(new DomainError(code, 'x')).status).toBe(status);
  });

  it('locates a batch error from its details, and elsewhere as the caller says', () => {
    const error = new DomainError('UNKNOWN_FACT', 'no fact f9', { field: 'factId' }).at(3);
    expect(domainHttpError(error).body()).toStrictEqual({
      error: {
        code: 'UNKNOWN_FACT',
        message: 'commands[3]: no fact f9',
        details: [{ path: 'commands.3.factId', message: 'commands[3]: no fact f9' }],
      },
    });
    expect(domainHttpError(new DomainError('MEMORY_NOT_EMPTY', 'not empty')).body().error.details).toEqual([{ path: '', message: 'not empty' }]);
    const atLine = domainHttpError(error, { path: 'line.7.factId', message: `line 7: ${error.problem}` });
    expect([atLine.status, atLine.body()]).toStrictEqual([
      404,
      { error: { code: 'UNKNOWN_FACT', message: 'line 7: no fact f9', details: [{ path: 'line.7.factId', message: 'line 7: no fact f9' }] } },
    ]);
  });
});
