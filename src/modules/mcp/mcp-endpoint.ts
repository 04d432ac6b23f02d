import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AuthContext } from '../../domain/auth-context.ts';
import { normaliseOrigin } from '../../domain/tenant.ts';
import { authOf, type App } from '../../http/fastify-types.ts';
import type { McpTools } from './mcp-server.ts';

/** JSON-RPC error codes the endpoint answers itself (JSON-RPC 2.0 §5.1; -32000 is "server error"). */
const PARSE_ERROR = -32700;
const SERVER_ERROR = -32000;

/** The MCP SDK and its schemas (~30 MB) load on the first agent request, not in every process at start. */
let sdk: Promise<
  [typeof import('./mcp-server.ts'), typeof import('@modelcontextprotocol/sdk/server/streamableHttp.js')]
> | null = null;
function loadSdk() {
  sdk ??= Promise.all([import('./mcp-server.ts'), import('@modelcontextprotocol/sdk/server/streamableHttp.js')]);
  return sdk;
}

function jsonRpcError(reply: FastifyReply, status: number, code: number, message: string): FastifyReply {
  return reply
    .status(status)
    .type('application/json; charset=utf-8')
    .send({ jsonrpc: '2.0', id: null, error: { code, message } });
}

/**
 * The origins a browser page may call `/mcp` from: the service's own, and those the caller's tenant
 * allows for CORS. The MCP transport requires checking `Origin` (against DNS rebinding): a request
 * that carries one outside this set is refused with 403.
 */
function originAllowed(origin: string, auth: AuthContext, ownOrigin: string): boolean {
  const wanted = normaliseOrigin(origin);
  if (wanted === normaliseOrigin(ownOrigin)) return true;
  return auth.tenant.corsOrigins.some((o) => normaliseOrigin(o) === wanted);
}

export interface McpEndpointDeps {
  tools: Omit<McpTools, 'apiBase'>;
  publicBaseUrl: string | null;
}

/**
 * `/mcp`: the Streamable HTTP transport, stateless (no session id; JSON answers, no event stream).
 * Bodies are read as text here so that malformed JSON gets the JSON-RPC parse error (-32700,
 * `id: null`) the transport specifies instead of the REST error body; GET (a server-sent event
 * stream) and DELETE (ending a session) do not exist on a stateless server: 405.
 */
export async function mcpEndpoint(app: App, deps: McpEndpointDeps): Promise<void> {
  await app.register(async (scope) => {
    scope.removeContentTypeParser('application/json');
    scope.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => done(null, body));

    scope.post(
      '/mcp',
      {
        config: { auth: 'tenant', rateLimit: 'general' },
        schema: {
          tags: ['mcp'],
          summary: 'Model Context Protocol endpoint for AI agents',
          description:
            'Streamable HTTP transport, stateless, JSON answers (send `Accept: application/json, text/event-stream`). Tools: `search`, `list_documents`, `get_document`, `get_content`, `ask`, each with an `outputSchema` and `structuredContent` beside the text; unknown arguments are refused naming the valid ones. Resources `document://{id}` (a missing or hidden document is JSON-RPC error -32002). Malformed JSON is JSON-RPC error -32700 with `id: null`. GET and DELETE answer 405 (no event stream, no session). A request whose `Origin` is neither this service nor one of the tenant’s `cors_origins` is 403. Sees exactly what the caller may see; `ask` costs 1 AI credit.',
          documentedBody: {
            description: 'A JSON-RPC 2.0 request, notification or batch.',
            type: 'object',
            additionalProperties: true,
          },
        },
      },
      async (request, reply) => {
        const auth = authOf(request);
        const ownOrigin = deps.publicBaseUrl
          ? new URL(deps.publicBaseUrl).origin
          : `${request.protocol}://${request.host}`;
        const origin = request.headers.origin;
        if (origin !== undefined && !originAllowed(origin, auth, ownOrigin)) {
          return jsonRpcError(reply, 403, SERVER_ERROR, `Origin ${origin} is not allowed to use this MCP server`);
        }
        let message: unknown;
        try {
          message = JSON.parse(typeof request.body === 'string' ? request.body : '');
        } catch {
          return jsonRpcError(reply, 400, PARSE_ERROR, 'Parse error: the body is not valid JSON');
        }
        await handle(
          request,
          reply,
          auth,
          message,
          `${deps.publicBaseUrl ?? ownOrigin}${request.sandbox ? '/sandbox' : ''}/api/v1`,
          deps.tools,
        );
      },
    );

    scope.route({
      method: ['GET', 'DELETE'],
      url: '/mcp',
      config: { auth: 'public', rateLimit: false },
      // Not an operation of the API: it exists to say so (the POST operation's description does).
      schema: { hide: true },
      handler: async (_request, reply) =>
        jsonRpcError(
          reply.header('allow', 'POST'),
          405,
          SERVER_ERROR,
          'Method not allowed: this MCP server is stateless; send requests with POST',
        ),
    });
  });
}

async function handle(
  request: FastifyRequest,
  reply: FastifyReply,
  auth: AuthContext,
  message: unknown,
  apiBase: string,
  tools: McpEndpointDeps['tools'],
) {
  const [{ createMcpServer }, { StreamableHTTPServerTransport }] = await loadSdk();
  const server = createMcpServer(auth, { ...tools, apiBase });
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  reply.raw.on('close', () => {
    void transport.close();
    void server.close();
  });
  reply.hijack();
  for (const [name, value] of Object.entries(reply.getHeaders()))
    if (value !== undefined) reply.raw.setHeader(name, value as string);
  await server.connect(transport);
  await transport.handleRequest(request.raw, reply.raw, message);
}
