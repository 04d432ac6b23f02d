import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

// A small OpenAI-compatible server for tests: the REST protocol the official SDK speaks, with
// deterministic answers derived from the request. POST /v1/chat/completions (strict JSON-schema
// answers built from the schema and the user text; streaming as server-sent events),
// POST /v1/embeddings (hashed word vectors, base64 little-endian float32 or float arrays),
// POST /v1/audio/transcriptions (multipart; a fixed transcript). Failures on demand.

/** What the server does, changeable between requests. */
export interface OpenAiServerBehaviour {
  /** Fail the next `times` requests (to `path` when given) with `status`, or by dropping the connection. */
  fail: {
    status: number | 'disconnect';
    times: number;
    retryAfter?: string;
    retryAfterMs?: number;
    path?: string;
  } | null;
  /** Pause between streamed chunks. */
  streamDelayMs: number;
  /** 'request' honours `encoding_format` (base64 when absent); the others force one, as some servers do. */
  embeddingsEncoding: 'request' | 'float' | 'base64';
  /** Vector size when the request does not ask for `dimensions`. */
  embeddingDimensions: number;
  /** Text of every transcription. */
  transcript: string;
  /** Replaces the content of structured (JSON) answers, e.g. to send broken JSON. */
  structuredContent: string | null;
  /** Replaces the streamed answer. */
  answerText: string | null;
}

/** A request as the server received it. */
export interface RecordedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  /** Parsed JSON, or the fields of a multipart form (files as `{ filename, size }`). */
  body: unknown;
  at: number;
  /** Status the server answered (0 for a dropped connection). */
  status: number;
}

export interface OpenAiTestServer {
  /** Base URL for the SDK: `http://127.0.0.1:<port>/v1`. */
  url: string;
  requests: RecordedRequest[];
  setBehaviour(changes: Partial<OpenAiServerBehaviour>): void;
  close(): Promise<void>;
}

const DEFAULTS: OpenAiServerBehaviour = {
  fail: null,
  streamDelayMs: 0,
  embeddingsEncoding: 'request',
  embeddingDimensions: 64,
  transcript: 'Hello from the test transcription.',
  structuredContent: null,
  answerText: null,
};

/** Starts the server on 127.0.0.1 with a random port. */
export async function startOpenAiServer(options: Partial<OpenAiServerBehaviour> = {}): Promise<OpenAiTestServer> {
  let behaviour: OpenAiServerBehaviour = { ...DEFAULTS, ...options };
  const requests: RecordedRequest[] = [];

  const server = http.createServer(async (req, res) => {
    const raw = await readBody(req);
    const path = (req.url ?? '/').split('?')[0]!;
    const contentType = String(req.headers['content-type'] ?? '');
    const body = contentType.startsWith('multipart/form-data') ? parseMultipart(raw, contentType) : parseJson(raw);
    const record: RecordedRequest = {
      method: req.method ?? 'GET',
      path,
      headers: req.headers,
      body,
      at: Date.now(),
      status: 200,
    };
    requests.push(record);

    const fail = behaviour.fail;
    if (fail && fail.times > 0 && (!fail.path || fail.path === path)) {
      behaviour = { ...behaviour, fail: fail.times > 1 ? { ...fail, times: fail.times - 1 } : null };
      if (fail.status === 'disconnect') {
        record.status = 0;
        req.socket.destroy();
        return;
      }
      const headers: Record<string, string> = {};
      if (fail.retryAfter !== undefined) headers['retry-after'] = fail.retryAfter;
      if (fail.retryAfterMs !== undefined) headers['retry-after-ms'] = String(fail.retryAfterMs);
      record.status = fail.status;
      sendError(res, fail.status, fail.status === 429 ? 'Rate limit reached' : 'The server had an error', headers);
      return;
    }

    try {
      if (req.method === 'POST' && path === '/v1/chat/completions') await chat(body as ChatRequest, res, behaviour);
      else if (req.method === 'POST' && path === '/v1/embeddings')
        embeddings(body as EmbeddingsRequest, res, behaviour);
      else if (req.method === 'POST' && path === '/v1/audio/transcriptions')
        sendJson(res, 200, { text: behaviour.transcript });
      else {
        record.status = 404;
        sendError(res, 404, `Unknown route ${req.method} ${path}`);
      }
    } catch (error) {
      record.status = 400;
      if (!res.headersSent) sendError(res, 400, (error as Error).message);
    }
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    setBehaviour: (changes) => {
      behaviour = { ...behaviour, ...changes };
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

interface ChatRequest {
  model: string;
  messages: { role: string; content: string | { type: string; text?: string }[] }[];
  stream?: boolean;
  response_format?: { type: string; json_schema?: { name: string; schema: JsonSchema } };
}

interface JsonSchema {
  type?: string;
  properties?: Record<string, JsonSchema>;
  items?: JsonSchema;
  enum?: string[];
}

async function chat(body: ChatRequest, res: ServerResponse, behaviour: OpenAiServerBehaviour): Promise<void> {
  if (!Array.isArray(body?.messages)) throw new Error('messages is required');
  const user = [...body.messages].reverse().find((m) => m.role === 'user');
  const userText =
    typeof user?.content === 'string' ? user.content : (user?.content ?? []).map((p) => p.text ?? '').join('\n');
  const created = Math.floor(Date.now() / 1000);

  if (body.stream) {
    const text = behaviour.answerText ?? groundedAnswer(userText);
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    let closed = false;
    res.on('close', () => {
      closed = true;
    });
    const chunk = (delta: Record<string, string>, finish: string | null) =>
      `data: ${JSON.stringify({ id: 'chatcmpl-test', object: 'chat.completion.chunk', created, model: body.model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    res.write(chunk({ role: 'assistant', content: '' }, null));
    for (const piece of text.match(/\S+\s*/g) ?? []) {
      if (behaviour.streamDelayMs > 0) await new Promise((r) => setTimeout(r, behaviour.streamDelayMs));
      if (closed) return;
      res.write(chunk({ content: piece }, null));
    }
    res.write(chunk({}, 'stop'));
    res.end('data: [DONE]\n\n');
    return;
  }

  const schema = body.response_format?.type === 'json_schema' ? body.response_format.json_schema?.schema : undefined;
  const content = schema
    ? (behaviour.structuredContent ?? JSON.stringify(valueFor(schema, '', userText)))
    : groundedAnswer(userText);
  const promptTokens = Math.ceil(JSON.stringify(body.messages).length / 4);
  sendJson(res, 200, {
    id: 'chatcmpl-test',
    object: 'chat.completion',
    created,
    model: body.model,
    choices: [
      { index: 0, message: { role: 'assistant', content, refusal: null }, finish_reason: 'stop', logprobs: null },
    ],
    usage: {
      prompt_tokens: promptTokens,
      completion_tokens: Math.ceil(content.length / 4),
      total_tokens: promptTokens + Math.ceil(content.length / 4),
    },
  });
}

/** A value that satisfies the schema, filled from the text where the property name says what it is. */
function valueFor(schema: JsonSchema, name: string, text: string): unknown {
  switch (schema.type) {
    case 'object':
      return Object.fromEntries(
        Object.entries(schema.properties ?? {}).map(([key, sub]) => [key, valueFor(sub, key, text)]),
      );
    case 'array':
      // Lists of objects ({name, confidence}, {value, text, confidence}) are built from the same strings.
      if (schema.items?.type === 'object') {
        return listFor(name, text).map((item) =>
          Object.fromEntries(
            Object.entries(schema.items!.properties ?? {}).map(([key, sub]) => [
              key,
              sub.type === 'number' ? 0.9 : sub.enum ? sub.enum[0] : item,
            ]),
          ),
        );
      }
      return listFor(name, text);
    case 'string':
      // An enum answers the first value the text names, else the last one ("other").
      if (schema.enum)
        return (
          schema.enum.find((v) => new RegExp(`\\b${v.replace(/_/g, ' ')}\\b`, 'i').test(text)) ??
          schema.enum[schema.enum.length - 1]
        );
      return name === 'summary' ? sentences(text).slice(0, 2).join(' ').slice(0, 400) : '';
    case 'number':
    case 'integer':
      return /confidence/.test(name) ? 0.9 : 0;
    case 'boolean':
      return false;
    default:
      return null;
  }
}

function listFor(name: string, text: string): string[] {
  const all = (re: RegExp, group = 1) => [...new Set([...text.matchAll(re)].map((m) => m[group]!.trim()))];
  switch (name) {
    case 'tags': {
      const counts = new Map<string, number>();
      for (const w of text.toLowerCase().match(/\p{L}{5,}/gu) ?? []) counts.set(w, (counts.get(w) ?? 0) + 1);
      return [...counts.entries()]
        .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
        .slice(0, 5)
        .map(([w]) => w);
    }
    case 'locations':
      return [];
    case 'people':
      return all(/\b(?:Mr|Mrs|Ms|Dr)\.?\s+([A-Z][a-z]+(?:\s+[A-Z][a-z]+)?)/g);
    case 'organizations':
      return all(/\b((?:[A-Z][\w&-]*\s+)+(?:Corporation|Inc\.|Corp\.|Ltd\.?|LLC|GmbH)(?!\w))/g);
    case 'dates':
      // Sent as written: the provider must normalise "March 3, 2026" itself.
      return all(
        /\b(\d{4}-\d{2}-\d{2}|(?:January|February|March|April|May|June|July|August|September|October|November|December) \d{1,2}, \d{4})\b/g,
      );
    case 'amounts':
      return all(/(\$\s?\d[\d,]*(?:\.\d+)?)/g);
    default:
      return [];
  }
}

function sentences(text: string): string[] {
  return (
    text
      .replace(/\s+/g, ' ')
      .match(/[^.!?]+[.!?]+/g)
      ?.map((s) => s.trim()) ?? [text.trim()]
  );
}

// The first sentence of passage [1], cited; or a plain "not found" when there are no passages.
function groundedAnswer(userText: string): string {
  const first = /\[1\][^\n]*\n([\s\S]*?)(?:\n\n\[\d+\]|\n\nQuestion:|$)/.exec(userText)?.[1];
  if (!first?.trim()) return 'The document does not say.';
  return `According to the document, ${sentences(first)[0]} [1]`;
}

interface EmbeddingsRequest {
  model: string;
  input: string | string[];
  encoding_format?: 'float' | 'base64';
  dimensions?: number;
}

function embeddings(body: EmbeddingsRequest, res: ServerResponse, behaviour: OpenAiServerBehaviour): void {
  const inputs = typeof body.input === 'string' ? [body.input] : body.input;
  if (!Array.isArray(inputs) || inputs.some((i) => typeof i !== 'string' || i === ''))
    throw new Error("'$.input' is invalid");
  const dimensions = body.dimensions ?? behaviour.embeddingDimensions;
  const encoding =
    behaviour.embeddingsEncoding === 'request' ? (body.encoding_format ?? 'base64') : behaviour.embeddingsEncoding;
  const data = inputs.map((input, index) => {
    const vector = wordVector(input, dimensions);
    const embedding =
      encoding === 'base64'
        ? Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength).toString('base64')
        : Array.from(vector);
    return { object: 'embedding', index, embedding };
  });
  const tokens = inputs.reduce((sum, i) => sum + Math.ceil(i.length / 4), 0);
  sendJson(res, 200, {
    object: 'list',
    data,
    model: body.model,
    usage: { prompt_tokens: tokens, total_tokens: tokens },
  });
}

/** Words hashed into signed buckets, little-endian float32, deliberately not unit length. */
function wordVector(text: string, dimensions: number): Float32Array {
  const vector = new Float32Array(dimensions);
  for (const word of text.toLowerCase().match(/\p{L}+/gu) ?? []) {
    let hash = 0x811c9dc5;
    for (let i = 0; i < word.length; i++) hash = Math.imul(hash ^ word.charCodeAt(i), 0x01000193) >>> 0;
    vector[hash % dimensions]! += hash & 0x80000000 ? -2 : 2;
  }
  // Endianness matters for base64: write explicitly little-endian.
  const bytes = Buffer.alloc(dimensions * 4);
  for (const [i, v] of vector.entries()) bytes.writeFloatLE(v, i * 4);
  return new Float32Array(bytes.buffer, bytes.byteOffset, dimensions);
}

function parseMultipart(raw: Buffer, contentType: string): Record<string, unknown> {
  const boundary = /boundary=(?:"([^"]+)"|([^;]+))/.exec(contentType);
  if (!boundary) throw new Error('multipart boundary missing');
  const delimiter = Buffer.from(`--${boundary[1] ?? boundary[2]}`);
  const fields: Record<string, unknown> = {};
  let at = raw.indexOf(delimiter);
  while (at >= 0) {
    const next = raw.indexOf(delimiter, at + delimiter.length);
    if (next < 0) break;
    const part = raw.subarray(at + delimiter.length + 2, next - 2);
    const split = part.indexOf('\r\n\r\n');
    const head = part.subarray(0, split).toString();
    const content = part.subarray(split + 4);
    const name = /name="([^"]*)"/.exec(head)?.[1];
    const filename = /filename="([^"]*)"/.exec(head)?.[1];
    if (name) fields[name] = filename !== undefined ? { filename, size: content.length } : content.toString();
    at = next;
  }
  return fields;
}

function parseJson(raw: Buffer): unknown {
  if (raw.length === 0) return null;
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch {
    return raw.toString('utf8');
  }
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const payload = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(payload),
    ...headers,
  });
  res.end(payload);
}

function sendError(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  const type = status === 429 ? 'rate_limit_exceeded' : status >= 500 ? 'server_error' : 'invalid_request_error';
  sendJson(res, status, { error: { message, type, param: null, code: type } }, headers);
}
