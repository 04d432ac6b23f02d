import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { getOrCreateServerSecret } from '../../db/server-secrets.ts';
import { authOf } from '../../http/fastify-types.ts';
import { SecretBox } from '../../lib/secret-box.ts';
import { defineModule } from '../../platform/module.ts';
import { outboundHttpFromConfig } from '../../providers/outbound/outbound-from-config.ts';
import { checkUrlTarget, withResponseLimit } from '../../providers/outbound/outbound-http.ts';
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

/** The MCP SDK and its schemas (~30 MB) load on the first agent request, not in every process at start. */
let sdk: Promise<[typeof import('./mcp-server.ts'), typeof import('@modelcontextprotocol/sdk/server/streamableHttp.js')]> | null = null;
function loadSdk() {
  sdk ??= Promise.all([import('./mcp-server.ts'), import('@modelcontextprotocol/sdk/server/streamableHttp.js')]);
  return sdk;
}

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
      rootRoutes(app) {
        app.route({
          method: ['POST', 'GET', 'DELETE'],
          url: '/mcp',
          config: { auth: 'tenant', rateLimit: 'general' },
          schema: {
            tags: ['mcp'],
            summary: 'Model Context Protocol endpoint for AI agents',
            description:
              'Streamable HTTP transport (JSON answers). Tools: `search`, `list_documents`, `get_document`, `get_content`, `ask`; resources `document://{id}`. Sees exactly what the caller may see; `ask` costs 1 AI credit.',
          },
          handler: async (request, reply) => {
            const auth = authOf(request);
            const [{ createMcpServer }, { StreamableHTTPServerTransport }] = await loadSdk();
            const origin = config.http.publicBaseUrl ?? `${request.protocol}://${request.host}`;
            const server = createMcpServer(auth, { documents, chat, search, apiBase: `${origin}${request.sandbox ? '/sandbox' : ''}/api/v1` });
            // Stateless: no session id, JSON answers instead of an event stream.
            const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
            reply.raw.on('close', () => {
              void transport.close();
              void server.close();
            });
            reply.hijack();
            for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) reply.raw.setHeader(name, value as string);
            await server.connect(transport);
            await transport.handleRequest(request.raw, reply.raw, request.body);
          },
        });
      },
    };
  },
});
