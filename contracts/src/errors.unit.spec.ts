import { z } from 'zod';
import { commandsRequest } from './commands';
import { ERROR_CODES, errorBody, errorResponse, httpStatusOf, validate, zodIssuesToDetails, type ErrorCode } from './errors';
import { factsQuery } from './queries';

describe('error codes', () => {
  it('are exactly the codes of the contract, with their HTTP statuses', () => {
    const expected: Record<ErrorCode, number> = {
      INVALID_REQUEST: 400,
      UNKNOWN_ENTITY: 404,
      UNKNOWN_FACT: 404,
      UNKNOWN_EVENT: 404,
      UNKNOWN_MENTION: 404,
      UNKNOWN_MEMORY: 404,
      UNAUTHORIZED: 401,
      FORBIDDEN: 403,
      NOT_FOUND: 404,
      TIMEOUT: 408,
      FACT_NOT_OPEN: 409,
      FACT_CONFLICT: 409,
      INVALID_INTERVAL: 409,
      RECORD_TIME_REGRESSION: 409,
      MENTION_CONFLICT: 409,
      MEMORY_NOT_EMPTY: 409,
      PAYLOAD_TOO_LARGE: 413,
      INTERNAL: 500,
      EXTRACTION_FAILED: 502,
      NOT_READY: 503,
      SEARCH_TOO_LARGE: 503,
      MEMORY_TOO_LARGE: 503,
      DATABASE_UNAVAILABLE: 503,
      SEARCH_UNAVAILABLE: 503,
      STORAGE_FULL: 507,
    };
    expect([...ERROR_CODES].sort()).toEqual(Object.keys(expected).sort());
    for (const code of ERROR_CODES) expect(httpStatusOf(code)).toBe(expected[code]);
  });

  it('builds bodies that match the error schema', () => {
    expect(errorBody('UNKNOWN_FACT', 'no such fact')).toStrictEqual({ error: { code: 'UNKNOWN_FACT', message: 'no such fact' } });
    const withDetails = errorBody('INVALID_REQUEST', 'bad', [{ path: 'a', message: 'b' }]);
    expect(errorResponse.parse(withDetails)).toStrictEqual(withDetails);
    expect(errorResponse.safeParse({ error: { code: 'TEAPOT', message: 'x' } }).success).toBe(false);
    expect(errorResponse.safeParse({ error: { code: 'INTERNAL' } }).success).toBe(false);
  });
});

describe('zodIssuesToDetails', () => {
  const detailsOf = (schema: z.ZodType, input: unknown) => {
    const r = schema.safeParse(input);
    if (r.success) throw new Error('expected failure');
    return zodIssuesToDetails(r.error);
  };

  it('gives dotted paths to the offending field', () => {
    const d = detailsOf(commandsRequest, {
      commands: [
        { op: 'ARCHIVE_EDGE', factId: 'ok' },
        { op: 'UPSERT_EDGE', src: 'a', rel: 'r', dst: 'b', validFrom: '2024-05-02T00:00:00Z', validTo: '2024-05-01T00:00:00Z' },
      ],
    });
    expect(d).toEqual([{ path: 'commands.1.validTo', message: 'must be later than validFrom' }]);
  });

  it('gives one detail per unknown field', () => {
    expect(detailsOf(commandsRequest, { commands: [{ op: 'ARCHIVE_EDGE', factId: 'f', a: 1, b: 2 }], c: 3 })).toEqual([
      { path: 'commands.0.a', message: 'unknown field' },
      { path: 'commands.0.b', message: 'unknown field' },
      { path: 'c', message: 'unknown field' },
    ]);
  });

  it('names a missing field as required', () => {
    expect(detailsOf(commandsRequest, { commands: [{ op: 'ARCHIVE_EDGE' }] })).toEqual([{ path: 'commands.0.factId', message: 'required' }]);
  });

  it('lists at most 100 problems, then how many more there are', () => {
    const unknown = Object.fromEntries(Array.from({ length: 250 }, (_, i) => [`k${i}`, i]));
    const details = detailsOf(commandsRequest, { commands: [{ op: 'ARCHIVE_EDGE', factId: 'f', ...unknown }] });
    expect(details).toHaveLength(101);
    expect(details[99]).toEqual({ path: 'commands.0.k99', message: 'unknown field' });
    expect(details[100]).toEqual({ path: '', message: 'and 150 more problems not listed' });
  });

  it('reports several fields of one command', () => {
    const d = detailsOf(commandsRequest, { commands: [{ op: 'UPSERT_EDGE', src: '', rel: 'r\n', dst: 'x', confidence: 2 }] });
    expect(d.map((x) => x.path).sort()).toEqual(['commands.0.confidence', 'commands.0.rel', 'commands.0.src']);
  });

  it('descends into the union branch the input was meant for', () => {
    expect(detailsOf(commandsRequest, { commands: [{ op: 'UPSERT_EDGE', src: 'a', rel: 'r', dst: { literal: 'x', datatype: 'number' } }] })).toEqual([
      { path: 'commands.0.dst.literal', message: 'must be a number (datatype "number")' },
    ]);
    expect(detailsOf(factsQuery, { validAt: 'soon' })).toEqual([{ path: 'validAt', message: expect.stringContaining('ISO-8601') }]);
  });

  it('uses the empty path for the root', () => {
    expect(detailsOf(commandsRequest, 'nope')).toEqual([{ path: '', message: expect.any(String) }]);
  });

  it('validate() wraps success and 400 bodies', () => {
    expect(validate(factsQuery, {})).toStrictEqual({ ok: true, value: { consistency: 'projection' } });
    expect(validate(factsQuery, { nope: '1' })).toStrictEqual({
      ok: false,
      error: { error: { code: 'INVALID_REQUEST', message: 'invalid request', details: [{ path: 'nope', message: 'unknown field' }] } },
    });
  });
});
