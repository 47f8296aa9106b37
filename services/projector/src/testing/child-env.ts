/**
 * The environment of a projector process a test spawns: the test's own, without the
 * optional backends `npm test` exports for their own specs (with OPENSEARCH_URL set, a
 * spawned projector would also feed OpenSearch and add its checkpoint row) and without
 * embeddings (it would load a model and embed every test's texts beside the read models).
 */
export function projectorEnv(overrides: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const { OPENSEARCH_URL: _search, KAFKA_BROKERS: _kafka, ...env } = process.env;
  return { ...env, EMBEDDINGS: 'off', ...overrides };
}
