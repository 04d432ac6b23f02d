import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { iso } from '../../../lib/clock.ts';
import type { RegisteredMcpServer } from './mcp-servers.repository.ts';

const MASK = '********';

/** A server as the API shows it: header values masked. */
export function presentMcpServer(server: RegisteredMcpServer) {
  return {
    id: server.id,
    name: server.name,
    url: server.url,
    headers: Object.fromEntries(server.headerNames.map((name) => [name, MASK])),
    created_at: iso(server.createdAt),
    updated_at: iso(server.updatedAt),
  };
}

/** A tool as the server listed it, in the API's snake_case. */
export function presentMcpTool(tool: Tool) {
  return {
    name: tool.name,
    ...(tool.title === undefined ? {} : { title: tool.title }),
    ...(tool.description === undefined ? {} : { description: tool.description }),
    input_schema: tool.inputSchema,
    ...(tool.outputSchema === undefined ? {} : { output_schema: tool.outputSchema }),
  };
}
