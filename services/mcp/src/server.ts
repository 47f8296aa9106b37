import { type MemoTraceClient, MemoTraceError } from '@memotrace/client';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { INSTRUCTIONS } from './descriptions';
import { ToolError } from './resolve';
import { ERASE_TOOL, MEMORY_TOOLS } from './tools';

export interface MemoTraceMcpOptions {
  /** Talks to MemoTrace's HTTP API with the caller's API key: every tool call passes the service's access control. */
  client: MemoTraceClient;
  /** The memory used when a tool call names none. */
  defaultMemory?: string;
  /** Offer the `erase` tool: only to a caller with an admin key (or when no keys are configured; the service checks again). */
  erase?: boolean;
}

export const MCP_SERVER_NAME = 'memotrace';

/** An MCP server exposing one MemoTrace (all its memories the key may use) as tools. */
export function createMemoTraceMcpServer(options: MemoTraceMcpOptions): McpServer {
  const server = new McpServer({ name: MCP_SERVER_NAME, version: '0.1.0' }, { capabilities: { tools: {} }, instructions: INSTRUCTIONS });
  for (const tool of options.erase ? [...MEMORY_TOOLS, ERASE_TOOL] : MEMORY_TOOLS) {
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: tool.description,
        inputSchema: tool.inputSchema,
        annotations: { readOnlyHint: tool.readOnly, destructiveHint: tool.destructive === true, idempotentHint: tool.readOnly, openWorldHint: false },
      },
      async (args: Record<string, unknown>): Promise<CallToolResult> => {
        const memoryId = (args['memoryId'] as string | undefined) ?? options.defaultMemory;
        if (memoryId === undefined) return failure('INVALID_REQUEST: memoryId is required (this server has no default memory)');
        try {
          const { memoryId: _m, ...rest } = args;
          const response = (await tool.run(options.client.memory(memoryId), rest)) as Record<string, unknown>;
          return { content: [{ type: 'text', text: JSON.stringify(response) }], structuredContent: response };
        } catch (error) {
          if (error instanceof MemoTraceError) return failure(describe(error));
          if (error instanceof ToolError) return failure(error.message);
          throw error;
        }
      },
    );
  }
  return server;
}

function failure(text: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text }] };
}

/** One line an agent can act on: `FORBIDDEN (HTTP 403): key "a" has no access to this memory`. */
function describe(error: MemoTraceError): string {
  const where = error.status === 0 ? '' : ` (HTTP ${error.status})`;
  const details = (error.details ?? []).map((d) => `${d.path || 'body'}: ${d.message}`).join('; ');
  return `${error.code}${where}: ${error.message}${details ? ` [${details}]` : ''}`;
}
