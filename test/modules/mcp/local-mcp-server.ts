import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

/** A small MCP server speaking Streamable HTTP with the official SDK, as a customer would run one. */
export interface LocalMcpServer {
  url: string;
  /** The headers of every request received, in order. */
  requests: http.IncomingHttpHeaders[];
  close(): Promise<void>;
}

function tools(): McpServer {
  const server = new McpServer({ name: 'local-test-tools', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.registerTool(
    'add',
    {
      title: 'Add two numbers',
      description: 'Adds a and b.',
      inputSchema: { a: z.number(), b: z.number() },
      outputSchema: { sum: z.number() },
    },
    ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }], structuredContent: { sum: a + b } }),
  );
  server.registerTool('shout', { description: 'Upper-cases text.', inputSchema: { text: z.string() } }, ({ text }) => ({
    content: [{ type: 'text', text: text.toUpperCase() }],
  }));
  server.registerTool(
    'refuse',
    { description: 'Always fails.', inputSchema: { reason: z.string() } },
    ({ reason }) => ({
      isError: true,
      content: [{ type: 'text', text: `refused: ${reason}` }],
    }),
  );
  server.registerTool(
    'flood',
    { description: 'Answers `bytes` characters.', inputSchema: { bytes: z.number() } },
    ({ bytes }) => ({
      content: [{ type: 'text', text: 'x'.repeat(bytes) }],
    }),
  );
  server.registerTool(
    'slow',
    { description: 'Answers after `ms`.', inputSchema: { ms: z.number() } },
    async ({ ms }, extra) => {
      await sleep(ms, undefined, { signal: extra.signal }).catch(() => undefined);
      return { content: [{ type: 'text', text: 'done' }] };
    },
  );
  return server;
}

/**
 * Starts the server on 127.0.0.1 (stateless: a fresh McpServer per request). With `token`, requests
 * without `Authorization: Bearer <token>` get 401, like a real server guarding its tools. With
 * `tls`, it speaks HTTPS with that certificate.
 */
export async function startLocalMcpServer(
  options: { token?: string; tls?: { cert: string; key: string } } = {},
): Promise<LocalMcpServer> {
  const requests: http.IncomingHttpHeaders[] = [];
  const handler: http.RequestListener = async (req, res) => {
    requests.push(req.headers);
    if (options.token && req.headers.authorization !== `Bearer ${options.token}`) {
      res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'unauthorized' }));
      return;
    }
    if (req.method !== 'POST') {
      res.writeHead(405).end();
      return;
    }
    const mcp = tools();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      void transport.close();
      void mcp.close();
    });
    await mcp.connect(transport);
    await transport.handleRequest(req, res);
  };
  const server = options.tls ? https.createServer(options.tls, handler) : http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `${options.tls ? 'https' : 'http'}://127.0.0.1:${port}/mcp`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
