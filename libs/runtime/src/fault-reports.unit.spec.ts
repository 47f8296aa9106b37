import { backgroundErrors } from './fault-reports';

describe('backgroundErrors', () => {
  it('reports an outage once, any other error each time', () => {
    const lines: string[] = [];
    const logger = {
      warn: (_: object, message: string) => lines.push(`warn ${message}`),
      error: (_: object, message: string) => lines.push(`error ${message}`),
    };
    const report = backgroundErrors(logger, 'projection failed', 'error');
    const away = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    for (let i = 0; i < 5; i++) report(away);
    report(new Error('boom'));
    report(new Error('boom'));
    report(away);
    expect(lines).toEqual([
      'warn projection failed: the database is unavailable; retrying until it is back',
      'error projection failed',
      'error projection failed',
      'warn projection failed: the database is unavailable; retrying until it is back',
    ]);
  });
});
