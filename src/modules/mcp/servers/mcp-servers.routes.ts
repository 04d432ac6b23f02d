import { Type } from 'typebox';
import {
  ErrorBody,
  IdParams,
  MessageBody,
  PageQuery,
  pageWindow,
  standardErrors,
} from '../../../http/common-schemas.ts';
import { authOf, type App } from '../../../http/fastify-types.ts';
import { presentMcpServer, presentMcpTool } from './mcp-servers.presenter.ts';
import { CreateMcpServerBody, McpServerList, McpServerView, McpToolList } from './mcp-servers.schemas.ts';
import type { McpServersService } from './mcp-servers.service.ts';

const TEAM = "Team tier and above (403 `tier_limit_exceeded`). Another tenant's server is 404.";

/** Contract §10 `mcp_tool`: the registry of MCP servers workflows call. */
export function mcpServerRoutes(app: App, s: { servers: McpServersService }): void {
  const tags = ['mcp'];
  const servers = s.servers;

  app.post(
    '/mcp/servers',
    {
      schema: {
        tags,
        summary: 'Register an MCP server',
        description: `Owners, admins and API keys (403 \`forbidden\` otherwise). Header values are stored encrypted and never shown again. The server is not contacted here: \`GET .../tools\` checks it. The URL must be absolute http(s); a host name is resolved and refused (400 \`invalid_url\`) if it points at a private or reserved address, but a name that does not resolve (yet) is accepted: every call checks the address it actually connects to, and fails (502) while the name does not resolve. ${TEAM}`,
        body: CreateMcpServerBody,
        response: { 201: McpServerView, 409: ErrorBody, ...standardErrors },
      },
    },
    async (request, reply) =>
      reply.status(201).send(presentMcpServer(await servers.create(authOf(request), request.body))),
  );

  app.get(
    '/mcp/servers',
    {
      schema: {
        tags,
        summary: 'List MCP servers',
        description: `Paged envelope \`{data, total, page, page_size}\`, oldest first. ${TEAM}`,
        querystring: Type.Object(PageQuery, { additionalProperties: false }),
        response: { 200: McpServerList, ...standardErrors },
      },
    },
    async (request) => {
      const page = pageWindow(request.query);
      const { rows, total } = await servers.list(authOf(request), page);
      return { data: rows.map(presentMcpServer), total, page: page.page, page_size: page.pageSize };
    },
  );

  app.get(
    '/mcp/servers/:id',
    {
      schema: {
        tags,
        summary: 'Get an MCP server',
        description: TEAM,
        params: IdParams,
        response: { 200: McpServerView, ...standardErrors },
      },
    },
    async (request) => presentMcpServer(await servers.get(authOf(request), request.params.id)),
  );

  app.delete(
    '/mcp/servers/:id',
    {
      schema: {
        tags,
        summary: 'Delete an MCP server',
        description: `Owners, admins and API keys. \`mcp_tool\` nodes naming it fail from then on. ${TEAM}`,
        params: IdParams,
        response: { 200: MessageBody, ...standardErrors },
      },
    },
    async (request) => {
      await servers.delete(authOf(request), request.params.id);
      return { message: 'MCP server deleted' };
    },
  );

  app.get(
    '/mcp/servers/:id/tools',
    {
      schema: {
        tags,
        summary: "List an MCP server's tools",
        description: `Asked of the server now, through the official MCP client over Streamable HTTP. 502 \`bad_gateway\` when it cannot be reached or fails, 504 \`gateway_timeout\` past \`MCP_CALL_TIMEOUT_MS\`. ${TEAM}`,
        params: IdParams,
        response: { 200: McpToolList, 502: ErrorBody, 504: ErrorBody, ...standardErrors },
      },
    },
    async (request) => {
      const tools = await servers.tools(authOf(request), request.params.id);
      return { server_id: request.params.id, tools: tools.map(presentMcpTool) };
    },
  );
}
