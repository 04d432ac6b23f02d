import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { getOrCreateServerSecret } from '../../db/server-secrets.ts';
import { SecretBox } from '../../lib/secret-box.ts';
import { defineModule } from '../../platform/module.ts';
import { outboundHttpFromConfig } from '../../providers/outbound/outbound-from-config.ts';
import { checkUrlTarget, withResponseLimit } from '../../providers/outbound/outbound-http.ts';
import { mcpEndpoint } from './mcp-endpoint.ts';
import { McpClient } from './servers/mcp-client.ts';
import { McpServersRepository } from './servers/mcp-servers.repository.ts';
import { mcpServerRoutes } from './servers/mcp-servers.routes.ts';
import { type McpToolCaller, McpServersService } from './servers/mcp-servers.service.ts';

export type { McpToolCaller } from './servers/mcp-servers.service.ts';

declare module '../../platform/module.ts' {
  interface ModuleServices {
    /** MCP servers the tenant registered: `callTool` for workflows' `mcp_tool` node. */
    mcpServers: McpToolCaller;
  }
}

/** The sealing key of MCP server headers, kept apart from other sealed secrets. */
const HEADERS_KEY = 'mcp_server_headers';
/** Largest answer read from a registered MCP server (a tool list or a tool result): 8 MiB. */
export const MCP_MAX_RESPONSE_BYTES = 8 * 1024 * 1024;

/**
 * Documents for AI agents: an MCP server at `/mcp` (Streamable HTTP, stateless: every request
 * carries its credentials), authenticated like the REST API by `X-API-Key` or a user token.
 * And the other way round: a registry of the tenant's own MCP servers (`/mcp/servers`), whose
 * tools workflows call through the official client and the guarded outbound client.
 */
export const mcpModule = defineModule({
  name: 'mcp',
  setup({ config, database, clock, use }) {
    const documents = use('documents');
    const chat = use('chat');
    const search = use('search');
    const allowPrivateNetwork = config.allowPrivateNetworkTargets;
    const http = outboundHttpFromConfig(config);
    const servers = new McpServersRepository();
    const registry = new McpServersService({
      database,
      clock,
      servers,
      secrets: new SecretBox(() => getOrCreateServerSecret(database.db, HEADERS_KEY, clock.now())),
      client: new McpClient(withResponseLimit(http.fetch, MCP_MAX_RESPONSE_BYTES) as unknown as FetchLike),
      checkUrl: (url) => checkUrlTarget(url, { allowPrivateNetwork }),
      callTimeoutMs: config.mcp.callTimeoutMs,
    });
    return {
      provides: { mcpServers: registry },
      routes: (app) => mcpServerRoutes(app, { servers: registry }),
      sandboxCleanup: (trx, tenantId) => servers.deleteForTenant(trx, tenantId),
      close: () => http.close(),
      rootRoutes: (app) =>
        mcpEndpoint(app, {
          tools: { documents, chat, search, audit: use('audit') },
          publicBaseUrl: config.http.publicBaseUrl ?? null,
        }),
    };
  },
});
