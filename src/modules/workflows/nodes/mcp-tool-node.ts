import type { ModuleServices } from '../../../platform/module.ts';
import type { NodeHandler } from '../node-handlers.ts';

const DEFAULT_TIMEOUT_MS = 30_000;

/**
 * `mcp_tool` `{server_id, tool_name, parameters}`: calls the tool on a server the tenant registered
 * (`use('mcpServers')`: the official MCP client over Streamable HTTP, through the guarded
 * outbound client). Output: the tool's `structuredContent`, else its `content`; a tool error, an
 * unknown server or the node's `timeout_seconds` running out fails the node with the message.
 */
export function mcpToolHandler(servers: ModuleServices['mcpServers']): NodeHandler {
  return async ({ node, config, tenantId, signal }) => {
    const args = config.parameters ?? {};
    if (typeof args !== 'object' || Array.isArray(args))
      throw new Error(`Node "${node.id}": parameters must be an object`);
    const timeoutMs = node.timeout_seconds ? node.timeout_seconds * 1000 : DEFAULT_TIMEOUT_MS;
    try {
      const output = await servers.callTool(
        tenantId,
        String(config.server_id),
        String(config.tool_name),
        args as Record<string, unknown>,
        { signal, timeoutMs },
      );
      return { kind: 'completed', output };
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      throw new Error(`Node "${node.id}": ${message}`);
    }
  };
}
