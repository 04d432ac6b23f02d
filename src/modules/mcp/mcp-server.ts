import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { McpError, ReadResourceRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { AuthContext } from '../../domain/auth-context.ts';
import { AppError, errors } from '../../lib/errors.ts';
import type { AuditTrail } from '../audit/index.ts';
import { type ChatService, presentCitation } from '../chat/index.ts';
import { type DocumentsService, presentDocumentDetail } from '../documents/index.ts';

/** What the tools reach: the same services as the REST API, called as the authenticated caller. */
export interface McpTools {
  documents: DocumentsService;
  chat: ChatService;
  /** Records each read of a document's text (docs/audit.md). */
  audit: AuditTrail;
  /** Keyword, semantic or hybrid search as `GET /search` answers it; absent until a search module is listed. */
  search?: (
    auth: AuthContext,
    query: { q: string; mode?: 'text' | 'semantic' | 'auto'; limit?: number },
  ) => Promise<unknown>;
  /** Base of the URLs documents carry (thumbnails, downloads). */
  apiBase: string;
}

/** The session name the `ask` tool keeps its conversation under, per document and caller. */
export const MCP_SESSION_NAME = 'AI agent (MCP)';

/** MCP's "resource not found" (specification, Resources > Error handling). */
export const RESOURCE_NOT_FOUND = -32002;

type ToolResult = {
  content: { type: 'text'; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
};

/**
 * Runs a tool body as the caller: the value comes back as `structuredContent` (checked against the
 * tool's `outputSchema`) and, for clients that read only text, as JSON text. The API's errors become
 * tool errors the agent can read, not protocol failures.
 */
async function asTool(
  body: () => Promise<Record<string, unknown>>,
  refused?: (error: AppError) => void,
): Promise<ToolResult> {
  try {
    const value = await body();
    return { content: [{ type: 'text', text: JSON.stringify(value, null, 2) }], structuredContent: value };
  } catch (error) {
    if (error instanceof AppError) {
      refused?.(error);
      return { isError: true, content: [{ type: 'text', text: `${error.code}: ${error.message}` }] };
    }
    throw error;
  }
}

/**
 * A tool's arguments as a strict object: an argument the tool does not take is refused, naming the
 * ones it does, instead of being dropped (a misspelt filter silently listing everything).
 */
function strictArguments<T extends z.ZodRawShape>(shape: T) {
  const valid = Object.keys(shape).join(', ') || '(none)';
  return z.strictObject(shape, {
    error: (issue) =>
      issue.code === 'unrecognized_keys'
        ? `Unknown argument ${issue.keys.map((k) => `"${k}"`).join(', ')}; valid arguments: ${valid}`
        : undefined,
  });
}

const DocumentSummary = z.object({
  id: z.string(),
  filename: z.string(),
  status: z.string(),
  ai_summary: z.string().nullable(),
});
/** What `GET /search` answers; results are documented there, so they pass through as they are. */
const SearchAnswer = {
  results: z.array(z.looseObject({ score: z.number() })),
  mode: z.string(),
  query: z.string(),
  total: z.number().int(),
};
const Citation = z.looseObject({ document_id: z.string(), text: z.string() });

/**
 * An MCP server for one request's caller: tools to search, read and ask about documents, and each
 * document as a resource (`document://{id}`). It sees exactly what the caller may see through the
 * REST API, and priced tools charge credits the same way.
 */
export function createMcpServer(auth: AuthContext, tools: McpTools): McpServer {
  /**
   * A tool's or a resource's refusal, in the audit trail like an HTTP one (docs/audit.md): the
   * request answers 200 with a tool error, so the route's hook cannot see it.
   */
  const audited =
    (tool: string, documentId: string | null = null) =>
    (error: AppError) =>
      tools.audit.refusal(auth, error, { type: 'document', id: documentId }, { via: 'mcp', tool });
  const server = new McpServer({ name: 'docuvault', version: '1.0.0' }, { capabilities: { tools: {}, resources: {} } });
  const { documents, chat } = tools;

  if (tools.search) {
    const search = tools.search;
    server.registerTool(
      'search',
      {
        title: 'Search documents',
        description:
          'Finds documents by keyword (mode "text", or "keyword" as another name for it), meaning ("semantic") or either by query length ("auto"). Semantic search costs 0.5 AI credits.',
        inputSchema: strictArguments({
          query: z.string().min(1),
          mode: z.enum(['text', 'keyword', 'semantic', 'auto']).optional(),
          limit: z.number().int().min(1).max(100).optional(),
        }),
        outputSchema: SearchAnswer,
        annotations: { readOnlyHint: true },
      },
      ({ query, mode, limit }) =>
        // `keyword` is the REST API's other name for `text`: agents may use either.
        asTool(
          async () =>
            (await search(auth, { q: query, mode: mode === 'keyword' ? 'text' : mode, limit })) as Record<
              string,
              unknown
            >,
          audited('search'),
        ),
    );
  }

  server.registerTool(
    'list_documents',
    {
      title: 'List documents',
      description: 'The newest documents the caller may see, optionally those whose name contains `name`.',
      inputSchema: strictArguments({ name: z.string().optional(), limit: z.number().int().min(1).max(100).optional() }),
      outputSchema: { total: z.number().int(), documents: z.array(DocumentSummary) },
      annotations: { readOnlyHint: true },
    },
    ({ name, limit }) =>
      asTool(async () => {
        const { items, total } = await documents.list(auth, {
          page: 1,
          limit: limit ?? 20,
          search: name,
          sort: 'created_at',
          order: 'desc',
        });
        return {
          total,
          documents: items.map(({ document: d }) => ({
            id: d.id,
            filename: d.filename,
            status: d.status,
            ai_summary: d.aiSummary,
          })),
        };
      }, audited('list_documents')),
  );

  server.registerTool(
    'get_document',
    {
      title: 'Get a document',
      description: 'A document with its summary, tags, entities and metadata.',
      inputSchema: strictArguments({ document_id: z.string().min(1) }),
      outputSchema: z.looseObject({ id: z.string(), filename: z.string(), status: z.string(), ai_status: z.string() }),
      annotations: { readOnlyHint: true },
    },
    ({ document_id }) =>
      asTool(
        async () => {
          const d = await documents.get(auth, document_id);
          return presentDocumentDetail(d.document, d.tags, tools.apiBase, d.progress) as unknown as Record<
            string,
            unknown
          >;
        },
        audited('get_document', document_id),
      ),
  );

  server.registerTool(
    'get_content',
    {
      title: 'Read a document',
      description: 'The extracted text of a document; `page` (1-based) reads one page of documents that have pages.',
      inputSchema: strictArguments({ document_id: z.string().min(1), page: z.number().int().min(1).optional() }),
      outputSchema: { content: z.string(), pages: z.number().int().nullable(), page: z.number().int().optional() },
      annotations: { readOnlyHint: true },
    },
    ({ document_id, page }) =>
      asTool(
        async () => {
          const c = await documents.content(auth, document_id, page);
          tools.audit.read(auth, 'document.mcp_read', { type: 'document', id: document_id }, { via: 'get_content' });
          return { content: c.content, pages: c.pages, ...(c.page ? { page: c.page } : {}) };
        },
        audited('get_content', document_id),
      ),
  );

  server.registerTool(
    'ask',
    {
      title: 'Ask about a document',
      description: `Answers a question from the document's passages, with citations. Costs 1 AI credit. The conversation is kept in the chat session "${MCP_SESSION_NAME}".`,
      inputSchema: strictArguments({ document_id: z.string().min(1), question: z.string().min(1).max(4000) }),
      outputSchema: { answer: z.string(), citations: z.array(Citation) },
    },
    ({ document_id, question }) =>
      asTool(
        async () => {
          const answer = await chat.askDocument(auth, document_id, question, MCP_SESSION_NAME);
          return { answer: answer.content, citations: (answer.citations ?? []).map(presentCitation) };
        },
        audited('ask', document_id),
      ),
  );

  const readDocument = async (href: string) => {
    const uri = URL.parse(href);
    const id = uri?.protocol === 'document:' ? decodeURIComponent(uri.host + uri.pathname).replace(/^\/+/, '') : '';
    try {
      if (!id) throw errors.notFound('resource');
      const c = await documents.content(auth, id);
      tools.audit.read(auth, 'document.mcp_read', { type: 'document', id }, { via: 'resource' });
      return { contents: [{ uri: href, mimeType: 'text/plain', text: c.content }] };
    } catch (error) {
      if (error instanceof AppError) audited('resource', id || null)(error);
      // Missing, another tenant's and not shared look the same, as in the REST API.
      if (error instanceof AppError && error.status === 404)
        throw new McpError(RESOURCE_NOT_FOUND, `Resource not found: ${href}`, { uri: href });
      throw error;
    }
  };
  server.registerResource(
    'document',
    new ResourceTemplate('document://{id}', {
      list: async () => {
        const { items } = await documents.list(auth, { page: 1, limit: 50, sort: 'created_at', order: 'desc' });
        return {
          resources: items.map(({ document: d }) => ({
            uri: `document://${d.id}`,
            name: d.filename,
            mimeType: 'text/plain',
          })),
        };
      },
    }),
    {
      title: 'Document text',
      description: 'The extracted text of a document the caller may read.',
      mimeType: 'text/plain',
    },
    (uri) => readDocument(uri.href),
  );
  // Every read goes through readDocument, so a URI no template matches is -32002 too (the SDK says -32602).
  server.server.setRequestHandler(ReadResourceRequestSchema, (request) => readDocument(request.params.uri));
  return server;
}
