import { z } from 'zod';

/**
 * `POST /mcp`: the Model Context Protocol over streamable HTTP, JSON-RPC 2.0 messages answered as JSON.
 * Only the envelope is documented here: the methods (`initialize`, `tools/list`, `tools/call`, ...)
 * and their params are MCP's, and the service's MCP SDK checks them.
 */

const rpcId = z.union([z.string(), z.number().int()]);

export const jsonRpcRequest = z.object({
  jsonrpc: z.literal('2.0'),
  id: rpcId.optional().meta({ description: 'absent in a notification, which is answered 202 without a body' }),
  method: z.string().min(1).meta({ description: 'an MCP method: initialize, tools/list, tools/call, ...' }),
  params: z.record(z.string(), z.unknown()).optional(),
});

export const jsonRpcError = z.strictObject({ code: z.number().int(), message: z.string(), data: z.unknown().optional() });

export const jsonRpcResponse = z.union([
  z.strictObject({ jsonrpc: z.literal('2.0'), id: rpcId, result: z.record(z.string(), z.unknown()) }),
  z.strictObject({ jsonrpc: z.literal('2.0'), id: rpcId.nullable(), error: jsonRpcError }),
]);

export type JsonRpcRequest = z.output<typeof jsonRpcRequest>;
export type JsonRpcResponse = z.output<typeof jsonRpcResponse>;
