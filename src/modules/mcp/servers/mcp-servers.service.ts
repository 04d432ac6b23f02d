import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Database } from '../../../db/database.ts';
import { isUniqueViolation } from '../../../db/db-errors.ts';
import type { AuthContext } from '../../../domain/auth-context.ts';
import { requireTenantAdmin } from '../../../domain/roles.ts';
import { requireFeature } from '../../../domain/tier-gate.ts';
import type { Clock } from '../../../lib/clock.ts';
import { errors } from '../../../lib/errors.ts';
import type { SecretBox } from '../../../lib/secret-box.ts';
import { newId } from '../../../lib/ids.ts';
import type { McpClient, McpEndpoint } from './mcp-client.ts';
import type { RegisteredMcpServer, McpServersRepository } from './mcp-servers.repository.ts';
import { checkServerHeaders } from './server-headers.ts';

/** Servers one tenant may register. */
export const MAX_MCP_SERVERS_PER_TENANT = 50;

/** Judges a URL being saved (outbound-http checkUrlTarget): absolute http(s), not a refused address unless allowed. */
export type UrlCheck = (url: string) => Promise<{ ok: true } | { ok: false; reason: string }>;

/** What workflows' `mcp_tool` node calls (published as the `mcpServers` service). */
export interface McpToolCaller {
  callTool(
    tenantId: string,
    serverId: string,
    toolName: string,
    args: Record<string, unknown>,
    options?: { signal?: AbortSignal; timeoutMs?: number },
  ): Promise<unknown>;
}

interface Deps {
  database: Database;
  clock: Clock;
  servers: McpServersRepository;
  secrets: SecretBox;
  client: McpClient;
  checkUrl: UrlCheck;
  /** Default time allowed for one call (MCP_CALL_TIMEOUT_MS). */
  callTimeoutMs: number;
}

/**
 * MCP servers a tenant registers for its workflows (contract §10 `mcp_tool`). Workflows are a Team
 * feature, so the registry is too. Owners, admins and API keys register and delete servers (their
 * headers carry the tenant's credentials for the other service); everyone of the tenant may list
 * them and their tools to build workflows. Header values are sealed at rest and never shown.
 */
export class McpServersService implements McpToolCaller {
  private readonly deps: Deps;
  constructor(deps: Deps) {
    this.deps = deps;
  }

  async create(
    auth: AuthContext,
    input: { name: string; url: string; headers?: Record<string, string> | undefined },
  ): Promise<RegisteredMcpServer> {
    requireFeature(auth, 'workflows');
    requireTenantAdmin(auth, 'Only an owner or admin may register MCP servers');
    const { database, clock, servers, secrets } = this.deps;
    const name = input.name.trim();
    if (name === '') throw errors.field('name', 'must not be blank');
    const headers = checkServerHeaders(input.headers ?? {});
    const checked = await this.deps.checkUrl(input.url);
    if (!checked.ok) throw errors.invalidUrl(checked.reason, { field: 'url' });
    const now = clock.now();
    const names = Object.keys(headers);
    const server: RegisteredMcpServer = {
      id: newId(now),
      tenantId: auth.tenant.id,
      name,
      url: input.url,
      headersSealed: names.length === 0 ? null : await secrets.seal(JSON.stringify(headers)),
      headerNames: names,
      createdBy: auth.userId,
      createdAt: now,
      updatedAt: now,
    };
    try {
      await database.db.transaction().execute(async (trx) => {
        if ((await servers.count(trx, auth.tenant.id)) >= MAX_MCP_SERVERS_PER_TENANT) {
          throw errors.conflict(`A tenant can register at most ${MAX_MCP_SERVERS_PER_TENANT} MCP servers`, {
            limit: MAX_MCP_SERVERS_PER_TENANT,
          });
        }
        await servers.insert(trx, server);
      });
    } catch (error) {
      if (isUniqueViolation(error))
        throw errors.conflict(`An MCP server named "${name}" already exists`, { field: 'name' });
      throw error;
    }
    return server;
  }

  list(auth: AuthContext, page: { limit: number; offset: number }) {
    requireFeature(auth, 'workflows');
    return this.deps.servers.list(this.deps.database.db, auth.tenant.id, page);
  }

  async get(auth: AuthContext, id: string): Promise<RegisteredMcpServer> {
    requireFeature(auth, 'workflows');
    return this.find(auth.tenant.id, id);
  }

  /** Deleting a server makes `mcp_tool` nodes naming it fail when they run (workflows keep their definition). */
  async delete(auth: AuthContext, id: string): Promise<void> {
    requireFeature(auth, 'workflows');
    await this.find(auth.tenant.id, id);
    requireTenantAdmin(auth, 'Only an owner or admin may delete MCP servers');
    if (!(await this.deps.servers.delete(this.deps.database.db, auth.tenant.id, id)))
      throw errors.notFound('mcp_server', id);
  }

  /** The server's tools, asked live (502 unreachable or failing, 504 too slow). */
  async tools(auth: AuthContext, id: string): Promise<Tool[]> {
    requireFeature(auth, 'workflows');
    const endpoint = await this.endpoint(await this.find(auth.tenant.id, id));
    return this.deps.client.listTools(endpoint, { timeoutMs: this.deps.callTimeoutMs });
  }

  /**
   * Calls a tool for a workflow node: the tool's `structuredContent`, else its `content`. A tool
   * that answers with an error result throws an Error naming the tool and carrying its message.
   */
  async callTool(
    tenantId: string,
    serverId: string,
    toolName: string,
    args: Record<string, unknown>,
    options: { signal?: AbortSignal; timeoutMs?: number } = {},
  ): Promise<unknown> {
    const endpoint = await this.endpoint(await this.find(tenantId, serverId));
    const limits = { timeoutMs: options.timeoutMs ?? this.deps.callTimeoutMs, signal: options.signal };
    const result = await this.deps.client.callTool(endpoint, toolName, args, limits);
    if (result.isError) throw new Error(`MCP tool "${toolName}" failed: ${errorText(result.content)}`);
    return result.structuredContent ?? result.content;
  }

  private async find(tenantId: string, id: string): Promise<RegisteredMcpServer> {
    const server = await this.deps.servers.findById(this.deps.database.db, tenantId, id);
    if (!server) throw errors.notFound('mcp_server', id);
    return server;
  }

  private async endpoint(server: RegisteredMcpServer): Promise<McpEndpoint> {
    const headers = server.headersSealed
      ? (JSON.parse(await this.deps.secrets.open(server.headersSealed)) as Record<string, string>)
      : {};
    return { url: server.url, headers };
  }
}

/** The text parts of an error result, which is where tools put their message. */
function errorText(content: readonly { type: string; text?: string }[] | undefined): string {
  const text = (content ?? [])
    .filter((part) => part.type === 'text' && typeof part.text === 'string')
    .map((part) => part.text)
    .join('\n')
    .trim();
  return text === '' ? 'the tool reported an error' : text;
}
