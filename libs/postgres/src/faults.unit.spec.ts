import { databaseFault } from './faults';

const failing = (message: string, code?: string, cause?: unknown) => Object.assign(new Error(message, { cause }), code ? { code } : {});

describe('databaseFault', () => {
  it.each([
    ['a refused connection', failing('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED'), 'unavailable'],
    ['a server shutting down', failing('terminating connection due to administrator command', '57P01'), 'unavailable'],
    ['a server starting up', failing('the database system is starting up', '57P03'), 'unavailable'],
    ['a connection exception', failing('connection failure', '08006'), 'unavailable'],
    ['a cut connection', failing('Connection terminated unexpectedly'), 'unavailable'],
    ['a pool that cannot connect in time', failing('timeout exceeded when trying to connect'), 'unavailable'],
    ['a wrapped refusal', failing('read failed', undefined, failing('connect ECONNREFUSED', 'ECONNREFUSED')), 'unavailable'],
    ['a full disk', failing('could not extend file: No space left on device', '53100'), 'full'],
    ['a constraint violation', failing('duplicate key value', '23505'), null],
    ['a plain error', new Error('boom'), null],
  ])('reads %s', (_what, error, fault) => {
    expect(databaseFault(error)).toBe(fault);
  });
});
