import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { iso } from '../../../lib/clock.ts';
import type { McpServerRow } from './mcp-servers.repository.ts';

const MASK = '********';

/** A server row as the API shows it: header values masked. */
export function presentMcpServer(row: McpServerRow) {
  const names = JSON.parse(row.header_names) as string[];
  return {
    id: row.id,
    name: row.name,
    url: row.url,
    headers: Object.fromEntries(names.map((name) => [name, MASK])),
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
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
