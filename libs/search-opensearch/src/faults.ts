import { errors } from '@opensearch-project/opensearch';

/**
 * Whether an error says the OpenSearch node is away, not that a request is wrong: no connection (refused,
 * reset, timed out, no living node), or a 503 (a node starting: its shards not yet allocated, a cluster
 * block). A restart takes seconds; search answers again once it is back.
 */
export function openSearchUnavailable(error: unknown): boolean {
  if (error instanceof errors.ConnectionError || error instanceof errors.NoLivingConnectionsError || error instanceof errors.TimeoutError)
    return true;
  return error instanceof errors.ResponseError && error.statusCode === 503;
}
