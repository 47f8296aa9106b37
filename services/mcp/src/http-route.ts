import { MemoTraceClient } from '@memotrace/client';
import type { AccessControl } from '@memotrace/http-kit';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { createMemoTraceMcpServer } from './server';

export const MCP_PATH = '/mcp';

/**
 * The MCP server over streamable HTTP at `/mcp` on the service itself (stateless: one
 * server and transport per request, so any instance behind a balancer can answer).
 * Tool calls go through this service's own HTTP routes (over loopback) with the
 * caller's bearer token, so the API-key rules of `/v1/...` hold unchanged; with
 * keys configured, a request without a valid key is refused (401) before any tool runs.
 * `?memory=<id>` sets the default memory of the tools.
 */
export function registerMcpRoute(app: FastifyInstance, access: AccessControl): void {
  app.post(MCP_PATH, async (request, reply) => {
    const token = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '')?.[1];
    const key = token === undefined ? undefined : access.authenticate(token);
    if (access.enabled && key === undefined) {
      return rpcError(reply, 401, token === undefined ? 'missing API key: send Authorization: Bearer <key>' : 'invalid API key');
    }
    const memory = (request.query as Record<string, unknown>)['memory'];
    const server = createMemoTraceMcpServer({
      client: new MemoTraceClient({ url: ownUrl(app), apiKey: token, retries: 1 }),
      // Erasure is for admin keys: others are not offered the tool (the service would refuse it anyway).
      erase: !access.enabled || key?.access === 'admin',
      ...(typeof memory === 'string' && memory !== '' ? { defaultMemory: memory } : {}),
    });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    reply.hijack();
    reply.raw.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(request.raw, reply.raw, request.body);
  });
  // Stateless: no server-initiated stream (GET) and no session to delete.
  for (const method of ['GET', 'DELETE'] as const) {
    app.route({
      method,
      url: MCP_PATH,
      handler: async (_request, reply) =>
        rpcError(reply.header('allow', 'POST'), 405, 'method not allowed: this MCP endpoint is stateless, POST only'),
    });
  }
}

function rpcError(reply: FastifyReply, status: number, message: string) {
  if (status === 401) void reply.header('www-authenticate', 'Bearer');
  return reply.status(status).send({ jsonrpc: '2.0', error: { code: -32000, message }, id: null });
}

/** This service's own listening address, as a URL the MCP tools call back on. */
export function ownUrl(app: FastifyInstance): string {
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('the service is not listening on TCP');
  const host = address.address === '0.0.0.0' ? '127.0.0.1' : address.address === '::' ? '::1' : address.address;
  return `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`;
}
