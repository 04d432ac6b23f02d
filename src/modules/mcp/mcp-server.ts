import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { AuthContext } from '../../domain/auth-context.ts';
import { AppError } from '../../lib/errors.ts';
import { type ChatService, presentCitation } from '../chat/index.ts';
import { type DocumentsService, presentDocumentDetail } from '../documents/index.ts';

/** What the tools reach: the same services as the REST API, called as the authenticated caller. */
export interface McpTools {
  documents: DocumentsService;
  chat: ChatService;
  /** Keyword, semantic or hybrid search as `GET /search` answers it; absent until a search module is listed. */
  search?: (auth: AuthContext, query: { q: string; mode?: 'text' | 'semantic' | 'auto'; limit?: number }) => Promise<unknown>;
  /** Base of the URLs documents carry (thumbnails, downloads). */
  apiBase: string;
}

/** The session name the `ask` tool keeps its conversation under, per document and caller. */
export const MCP_SESSION_NAME = 'AI agent (MCP)';

type ToolResult = { content: { type: 'text'; text: string }[]; isError?: boolean };

/** Runs a tool body as the caller; the API's errors become tool errors the agent can read, not protocol failures. */
async function asTool(body: () => Promise<unknown>): Promise<ToolResult> {
  try {
    const value = await body();
    return { content: [{ type: 'text', text: typeof value === 'string' ? value : JSON.stringify(value, null, 2) }] };
  } catch (error) {
    if (error instanceof AppError) return { isError: true, content: [{ type: 'text', text: `${error.code}: ${error.message}` }] };
    throw error;
  }
}

/**
 * An MCP server for one request's caller: tools to search, read and ask about documents, and each
 * document as a resource (`document://{id}`). It sees exactly what the caller may see through the
 * REST API, and priced tools charge credits the same way.
 */
export function createMcpServer(auth: AuthContext, tools: McpTools): McpServer {
  const server = new McpServer({ name: 'docuvault', version: '1.0.0' }, { capabilities: { tools: {}, resources: {} } });
  const { documents, chat } = tools;

  if (tools.search) {
    const search = tools.search;
    server.registerTool(
      'search',
      {
        title: 'Search documents',
        description: 'Finds documents by keyword (mode "text"), meaning ("semantic") or either by query length ("auto"). Semantic search costs 0.5 AI credits.',
        inputSchema: { query: z.string().min(1), mode: z.enum(['text', 'semantic', 'auto']).optional(), limit: z.number().int().min(1).max(100).optional() },
        annotations: { readOnlyHint: true },
      },
      ({ query, mode, limit }) => asTool(() => search(auth, { q: query, mode, limit })),
    );
  }

  server.registerTool(
    'list_documents',
    {
      title: 'List documents',
      description: 'The newest documents the caller may see, optionally those whose name contains `name`.',
      inputSchema: { name: z.string().optional(), limit: z.number().int().min(1).max(100).optional() },
      annotations: { readOnlyHint: true },
    },
    ({ name, limit }) =>
      asTool(async () => {
        const { items, total } = await documents.list(auth, { page: 1, limit: limit ?? 20, search: name, sort: 'created_at', order: 'desc' });
        return { total, documents: items.map(({ document: d }) => ({ id: d.id, filename: d.filename, status: d.status, ai_summary: d.aiSummary })) };
      }),
  );

  server.registerTool(
    'get_document',
    {
      title: 'Get a document',
      description: 'A document with its summary, tags, entities and metadata.',
      inputSchema: { document_id: z.string().min(1) },
      annotations: { readOnlyHint: true },
    },
    ({ document_id }) =>
      asTool(async () => {
        const d = await documents.get(auth, document_id);
        return presentDocumentDetail(d.document, d.tags, tools.apiBase);
      }),
  );

  server.registerTool(
    'get_content',
    {
      title: 'Read a document',
      description: 'The extracted text of a document; `page` (1-based) reads one page of documents that have pages.',
      inputSchema: { document_id: z.string().min(1), page: z.number().int().min(1).optional() },
      annotations: { readOnlyHint: true },
    },
    ({ document_id, page }) =>
      asTool(async () => {
        const c = await documents.content(auth, document_id, page);
        return { content: c.content, pages: c.pages, ...(c.page ? { page: c.page } : {}) };
      }),
  );

  server.registerTool(
    'ask',
    {
      title: 'Ask about a document',
      description: `Answers a question from the document's passages, with citations. Costs 1 AI credit. The conversation is kept in the chat session "${MCP_SESSION_NAME}".`,
      inputSchema: { document_id: z.string().min(1), question: z.string().min(1).max(4000) },
    },
    ({ document_id, question }) =>
      asTool(async () => {
        const answer = await chat.askDocument(auth, document_id, question, MCP_SESSION_NAME);
        return { answer: answer.content, citations: (answer.citations ?? []).map(presentCitation) };
      }),
  );

  server.registerResource(
    'document',
    new ResourceTemplate('document://{id}', {
      list: async () => {
        const { items } = await documents.list(auth, { page: 1, limit: 50, sort: 'created_at', order: 'desc' });
        return { resources: items.map(({ document: d }) => ({ uri: `document://${d.id}`, name: d.filename, mimeType: 'text/plain' })) };
      },
    }),
    { title: 'Document text', description: 'The extracted text of a document the caller may read.', mimeType: 'text/plain' },
    async (uri, variables) => {
      const id = String(variables['id']);
      const c = await documents.content(auth, id);
      return { contents: [{ uri: uri.href, mimeType: 'text/plain', text: c.content }] };
    },
  );
  return server;
}
