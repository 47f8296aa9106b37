import { MemoTraceClient } from '@memotrace/client';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createMemoTraceMcpServer } from './server';

/**
 * `npm run -s start:mcp`: the MCP server over stdio, for agent frameworks that launch
 * it. It talks to a running MemoTrace at MEMOTRACE_URL (default http://127.0.0.1:8080)
 * with MEMOTRACE_API_KEY; MEMOTRACE_MEMORY is the default memory; MEMOTRACE_MCP_ERASE=true offers
 * the `erase` tool (for an admin key: the service refuses it to any other). stdout carries the
 * protocol only: messages go to stderr.
 */
async function main(): Promise<void> {
  const url = process.env['MEMOTRACE_URL'] || 'http://127.0.0.1:8080';
  const apiKey = process.env['MEMOTRACE_API_KEY'] || undefined;
  const defaultMemory = process.env['MEMOTRACE_MEMORY'] || undefined;
  const erase = process.env['MEMOTRACE_MCP_ERASE'] === 'true';
  const server = createMemoTraceMcpServer({ client: new MemoTraceClient({ url, apiKey }), erase, ...(defaultMemory ? { defaultMemory } : {}) });
  await server.connect(new StdioServerTransport());
  process.stderr.write(`memotrace MCP server on stdio, for ${url}${defaultMemory ? `, memory ${defaultMemory}` : ''}\n`);
  // Runs until stdin ends and the calls in flight are answered (the event loop drains), or a signal.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => void server.close().finally(() => process.exit(0)));
}

main().catch((error: Error) => {
  process.stderr.write(`memotrace MCP server failed to start: ${error.message}\n`);
  process.exit(1);
});
