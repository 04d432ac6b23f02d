import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { errors } from '../../../lib/errors.ts';

/** Where a registered server is reached and what every request to it carries. */
export interface McpEndpoint {
  url: string;
  headers: Record<string, string>;
}

export interface McpCallLimits {
  timeoutMs: number;
  signal?: AbortSignal | undefined;
}

/** The MCP SDK client (~30 MB with its schemas) loads on the first call, not in every process at start. */
let sdk: Promise<
  [
    typeof import('@modelcontextprotocol/sdk/client/index.js'),
    typeof import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
  ]
> | null = null;
function loadSdk() {
  sdk ??= Promise.all([
    import('@modelcontextprotocol/sdk/client/index.js'),
    import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
  ]);
  return sdk;
}

const MAX_TOOL_PAGES = 20;

/**
 * Talks to MCP servers registered by tenants over Streamable HTTP with the official client. Every
 * request goes through `fetch`, the guarded outbound client (private addresses refused unless
 * allowed, no redirects), under one deadline covering connect, initialise and the call.
 */
export class McpClient {
  readonly #fetch: FetchLike;
  constructor(fetch: FetchLike) {
    this.#fetch = fetch;
  }

  /** Every tool the server lists (following its pages). */
  listTools(endpoint: McpEndpoint, limits: McpCallLimits): Promise<Tool[]> {
    return this.#session(endpoint, limits, async (client, options) => {
      const tools: Tool[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < MAX_TOOL_PAGES; page++) {
        const answer = await client.listTools(cursor === undefined ? {} : { cursor }, options);
        tools.push(...answer.tools);
        cursor = answer.nextCursor;
        if (!cursor) break;
      }
      return tools;
    });
  }

  /** Calls one tool; a protocol error (unknown tool, bad arguments) becomes an Error naming the tool. */
  callTool(
    endpoint: McpEndpoint,
    name: string,
    args: Record<string, unknown>,
    limits: McpCallLimits,
  ): Promise<CallToolResult> {
    return this.#session(endpoint, limits, async (client, options) => {
      try {
        return (await client.callTool({ name, arguments: args }, undefined, options)) as CallToolResult;
      } catch (error) {
        const { McpError } = await import('@modelcontextprotocol/sdk/types.js');
        if (error instanceof McpError && !isTimeout(error))
          throw new Error(`MCP tool "${name}" failed: ${error.message}`, { cause: error });
        throw error;
      }
    });
  }

  async #session<T>(
    endpoint: McpEndpoint,
    limits: McpCallLimits,
    body: (client: Client, options: { signal: AbortSignal; timeout: number }) => Promise<T>,
  ): Promise<T> {
    const [{ Client }, { StreamableHTTPClientTransport }] = await loadSdk();
    const deadline = AbortSignal.timeout(limits.timeoutMs);
    const signal = limits.signal ? AbortSignal.any([limits.signal, deadline]) : deadline;
    const guardedFetch: FetchLike = (url, init) =>
      this.#fetch(url, { ...init, signal: init?.signal ? AbortSignal.any([init.signal, signal]) : signal });
    const transport = new StreamableHTTPClientTransport(new URL(endpoint.url), {
      fetch: guardedFetch,
      requestInit: { headers: endpoint.headers, redirect: 'error' },
    });
    const client = new Client({ name: 'docuvault-workflows', version: '1.0.0' });
    const options = { signal, timeout: limits.timeoutMs };
    try {
      await client.connect(transport, options);
      return await body(client, options);
    } catch (error) {
      if (limits.signal?.aborted) throw limits.signal.reason ?? error;
      throw translate(error, endpoint, deadline, limits.timeoutMs);
    } finally {
      await client.close().catch(() => undefined);
    }
  }
}

function isTimeout(error: unknown): boolean {
  return error instanceof Error && (error.name === 'TimeoutError' || (error as { code?: unknown }).code === -32001);
}

/** Failures of the connection become 502/504 answers; tool failures and the caller's abort pass through. */
function translate(error: unknown, endpoint: McpEndpoint, deadline: AbortSignal, timeoutMs: number): unknown {
  const host = URL.parse(endpoint.url)?.host ?? endpoint.url;
  if (deadline.aborted || isTimeout(error))
    return errors.gatewayTimeout(`The MCP server at ${host} did not answer within ${timeoutMs} ms`, {
      timeout_ms: timeoutMs,
    });
  if (error instanceof Error && error.message.startsWith('MCP tool "')) return error;
  const reason = rootCause(error);
  return errors.badGateway(`The MCP server at ${host} could not be used: ${reason.message}`, {
    reason: reason.code ?? 'mcp_error',
  });
}

/** The innermost error (fetch wraps socket errors, the guard's refusal among them, in `cause`). */
function rootCause(error: unknown): { message: string; code?: string } {
  let current = error;
  while (current instanceof Error && current.cause instanceof Error) current = current.cause;
  if (!(current instanceof Error)) return { message: String(current) };
  const code = (current as { code?: unknown }).code;
  return typeof code === 'string' ? { message: current.message, code } : { message: current.message };
}
