import { errors } from '@opensearch-project/opensearch';
import { openSearchUnavailable } from './faults';

const response = (statusCode: number) =>
  new errors.ResponseError({ statusCode, body: { error: { type: 'x' } }, headers: {}, meta: {} as never, warnings: null });

describe('openSearchUnavailable', () => {
  it('says a node away: no connection, a timeout, a 503', () => {
    expect(openSearchUnavailable(new errors.ConnectionError('connect ECONNREFUSED 127.0.0.1:9200'))).toBe(true);
    expect(openSearchUnavailable(new errors.NoLivingConnectionsError('no living connections', {} as never))).toBe(true);
    expect(openSearchUnavailable(new errors.TimeoutError('timed out', {} as never))).toBe(true);
    expect(openSearchUnavailable(response(503))).toBe(true);
  });

  it('leaves a request OpenSearch refused, and any other error, to be what it is', () => {
    expect(openSearchUnavailable(response(400))).toBe(false);
    expect(openSearchUnavailable(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }))).toBe(false);
  });
});
