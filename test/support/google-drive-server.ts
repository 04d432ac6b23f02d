import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import JSZip from 'jszip';

// A small server speaking the subset of Google Drive API v3 and Google's OAuth token endpoint that
// the importer uses, for tests and benchmarks: files.list (`q` of the form `'<id>' in parents and
// trashed = false`, `fields`, `pageSize`, `pageToken`), files.get (metadata, or `alt=media` bytes),
// files.export (Google-native files, with Drive's export size limit), and POST /token
// (grant_type=refresh_token). Bearer tokens are checked; failures are injected on demand.

export const FOLDER = 'application/vnd.google-apps.folder';
export const GOOGLE_DOC = 'application/vnd.google-apps.document';
export const GOOGLE_SHEET = 'application/vnd.google-apps.spreadsheet';
export const GOOGLE_SLIDES = 'application/vnd.google-apps.presentation';
export const GOOGLE_DRAWING = 'application/vnd.google-apps.drawing';
export const GOOGLE_FORM = 'application/vnd.google-apps.form';
export const SHORTCUT = 'application/vnd.google-apps.shortcut';

/** Drive exports at most this many bytes of a native file. */
export const EXPORT_LIMIT_BYTES = 10 * 1024 * 1024;

export interface DriveFile {
  id: string;
  name: string;
  mimeType: string;
  parents: string[];
  /** Bytes of a stored file (or the text a native file exports to). */
  content?: Buffer;
  ownedByMe?: boolean;
  trashed?: boolean;
  shortcutTargetId?: string;
  /** A native file's export size, to trip the 10 MB export limit without making 10 MB. */
  exportSize?: number;
}

/** A failure to answer instead of the real one, `times` times, for requests whose path contains `match`. */
export interface InjectedFailure {
  match: string;
  status: number;
  reason?: string;
  retryAfter?: string;
  times: number;
}

export interface DriveTestServer {
  /** GOOGLE_DRIVE_API_URL. */
  url: string;
  /** GOOGLE_OAUTH_TOKEN_URL. */
  tokenUrl: string;
  files: Map<string, DriveFile>;
  add(file: DriveFile): DriveFile;
  /** Access tokens Drive accepts now; `expireTokens()` makes every one of them answer 401. */
  validTokens: Set<string>;
  expireTokens(): void;
  /** What a refresh must present. */
  client: { id: string; secret: string; refreshToken: string };
  failures: InjectedFailure[];
  /** Downloads wait while this is set (to catch an import in the middle of a file). */
  hold: Promise<void> | null;
  /** While set, downloads send their bytes `chunkBytes` at a time with `delayMs` between chunks. */
  slow: { chunkBytes: number; delayMs: number } | null;
  /** Downloads whose answer has started but not ended (a file in the middle of its transfer). */
  readonly partialDownloads: number;
  /** Each files.list answer waits this long (a scan slow enough to be caught half-way). */
  listDelayMs: number;
  /** Every request: method and path with query. */
  log: { method: string; url: string; status: number }[];
  close(): Promise<void>;
}

const INITIAL_TOKEN = 'ya29.initial-token';

export async function startDriveServer(): Promise<DriveTestServer> {
  let issued = 0;
  const state: Omit<DriveTestServer, 'url' | 'tokenUrl' | 'close'> = {
    files: new Map(),
    add(file) {
      state.files.set(file.id, file);
      return file;
    },
    validTokens: new Set([INITIAL_TOKEN]),
    expireTokens() {
      state.validTokens.clear();
    },
    client: { id: 'client-123.apps.googleusercontent.com', secret: 'client-secret', refreshToken: '1//refresh-token' },
    failures: [],
    hold: null,
    slow: null,
    partialDownloads: 0,
    listDelayMs: 0,
    log: [],
  };
  let partial = 0;

  const server = http.createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) send(res, 500, { error: { code: 500, message: String(error) } });
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    res.on('finish', () =>
      state.log.push({ method: req.method ?? 'GET', url: `${url.pathname}${url.search}`, status: res.statusCode }),
    );
    if (req.method === 'POST' && url.pathname === '/token') return token(req, res);
    const failure = state.failures.find((f) => f.times > 0 && `${url.pathname}${url.search}`.includes(f.match));
    const auth = req.headers.authorization ?? '';
    if (!state.validTokens.has(auth.replace(/^Bearer /, ''))) {
      return send(res, 401, apiError(401, 'Request had invalid authentication credentials.', 'authError'));
    }
    if (failure) {
      failure.times -= 1;
      if (failure.retryAfter !== undefined) res.setHeader('retry-after', failure.retryAfter);
      return send(
        res,
        failure.status,
        apiError(failure.status, `Injected failure ${failure.status}`, failure.reason ?? 'backendError'),
      );
    }
    const exportMatch = /^\/drive\/v3\/files\/([^/]+)\/export$/.exec(url.pathname);
    if (exportMatch) return exportFile(decodeURIComponent(exportMatch[1]!), url, res);
    const getMatch = /^\/drive\/v3\/files\/([^/]+)$/.exec(url.pathname);
    if (getMatch) return getFile(decodeURIComponent(getMatch[1]!), url, res);
    if (url.pathname === '/drive/v3/files') {
      if (state.listDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, state.listDelayMs));
      return list(url, res);
    }
    send(res, 404, apiError(404, 'Not found', 'notFound'));
  }

  async function token(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const form = new URLSearchParams(await readBody(req));
    const c = state.client;
    if (
      form.get('grant_type') !== 'refresh_token' ||
      form.get('refresh_token') !== c.refreshToken ||
      form.get('client_id') !== c.id ||
      form.get('client_secret') !== c.secret
    ) {
      return send(res, 400, { error: 'invalid_grant', error_description: 'Bad refresh request' });
    }
    issued += 1;
    const accessToken = `ya29.refreshed-${issued}`;
    state.validTokens.add(accessToken);
    send(res, 200, {
      access_token: accessToken,
      expires_in: 3599,
      token_type: 'Bearer',
      scope: 'https://www.googleapis.com/auth/drive.readonly',
    });
  }

  function list(url: URL, res: ServerResponse): void {
    const q = url.searchParams.get('q') ?? '';
    const parent = /^'((?:[^'\\]|\\.)*)' in parents and trashed = false$/.exec(q);
    if (!parent) {
      send(res, 400, apiError(400, `Unsupported query: ${q}`, 'invalid'));
      return;
    }
    const parentId = parent[1]!.replace(/\\(.)/g, '$1');
    const pageSize = Math.min(1000, Number(url.searchParams.get('pageSize') ?? '100'));
    const offset = Number(url.searchParams.get('pageToken') ?? '0');
    const all = [...state.files.values()]
      .filter((f) => f.parents.includes(parentId) && !f.trashed)
      .sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id));
    const page = all.slice(offset, offset + pageSize);
    const next = offset + pageSize < all.length ? String(offset + pageSize) : undefined;
    send(res, 200, { kind: 'drive#fileList', ...(next ? { nextPageToken: next } : {}), files: page.map(metadata) });
  }

  async function getFile(id: string, url: URL, res: ServerResponse): Promise<void> {
    const file = state.files.get(id);
    if (!file || file.trashed) return send(res, 404, apiError(404, `File not found: ${id}.`, 'notFound'));
    if (url.searchParams.get('alt') !== 'media') return send(res, 200, metadata(file));
    if (file.mimeType.startsWith('application/vnd.google-apps.')) {
      return send(
        res,
        403,
        apiError(
          403,
          'Only files with binary content can be downloaded. Use Export with Docs Editors files.',
          'fileNotDownloadable',
        ),
      );
    }
    if (state.hold) await state.hold;
    const content = file.content ?? Buffer.alloc(0);
    res.writeHead(200, { 'content-type': file.mimeType, 'content-length': String(content.length) });
    if (!state.slow) return void res.end(content);
    await sendSlowly(res, content);
  }

  /** The bytes a chunk at a time (a slow link), counted as partial until the last one is sent. */
  async function sendSlowly(res: ServerResponse, content: Buffer): Promise<void> {
    partial += 1;
    try {
      for (let at = 0; at < content.length && !res.destroyed; ) {
        const { chunkBytes, delayMs } = state.slow ?? { chunkBytes: content.length, delayMs: 0 };
        res.write(content.subarray(at, at + chunkBytes));
        at += chunkBytes;
        if (at < content.length) await new Promise((resolve) => setTimeout(resolve, delayMs));
      }
      res.end();
    } finally {
      partial -= 1;
    }
  }

  async function exportFile(id: string, url: URL, res: ServerResponse): Promise<void> {
    const file = state.files.get(id);
    if (!file || file.trashed) return send(res, 404, apiError(404, `File not found: ${id}.`, 'notFound'));
    const mimeType = url.searchParams.get('mimeType') ?? '';
    if (!file.mimeType.startsWith('application/vnd.google-apps.')) {
      return send(res, 403, apiError(403, 'Export only supports Docs Editors files.', 'fileNotExportable'));
    }
    if ((file.exportSize ?? 0) > EXPORT_LIMIT_BYTES)
      return send(res, 403, apiError(403, 'This file is too large to be exported.', 'exportSizeLimitExceeded'));
    if (state.hold) await state.hold;
    const body = await exportBytes(file, mimeType);
    res.writeHead(200, { 'content-type': mimeType, 'content-length': String(body.length) });
    res.end(body);
  }

  server.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    ...state,
    get hold() {
      return state.hold;
    },
    set hold(value) {
      state.hold = value;
    },
    get slow() {
      return state.slow;
    },
    set slow(value) {
      state.slow = value;
    },
    get partialDownloads() {
      return partial;
    },
    get listDelayMs() {
      return state.listDelayMs;
    },
    set listDelayMs(value) {
      state.listDelayMs = value;
    },
    url: `http://127.0.0.1:${port}/`,
    tokenUrl: `http://127.0.0.1:${port}/token`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The token a project's credentials start with. */
export const DRIVE_ACCESS_TOKEN = INITIAL_TOKEN;

function metadata(file: DriveFile) {
  const native = file.mimeType.startsWith('application/vnd.google-apps.');
  return {
    kind: 'drive#file',
    id: file.id,
    name: file.name,
    mimeType: file.mimeType,
    parents: file.parents,
    ownedByMe: file.ownedByMe ?? true,
    ...(native ? {} : { size: String(file.content?.length ?? 0) }),
    ...(file.shortcutTargetId ? { shortcutDetails: { targetId: file.shortcutTargetId, targetMimeType: FOLDER } } : {}),
  };
}

/** What an export produces: real enough for the library's content checks (PDF header, zip container, text). */
async function exportBytes(file: DriveFile, mimeType: string): Promise<Buffer> {
  const text = file.content?.toString('utf8') ?? file.name;
  if (mimeType === 'application/pdf') return minimalPdf(text);
  if (mimeType.startsWith('text/')) return Buffer.from(mimeType === 'text/csv' ? `name,value\n${text},1\n` : text);
  if (mimeType === 'image/png')
    return Buffer.from(
      '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201c2a0b3690000000049454e44ae426082',
      'hex',
    );
  const zip = new JSZip();
  zip.file(
    '[Content_Types].xml',
    '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>',
  );
  zip.file('content.txt', text);
  return zip.generateAsync({ type: 'nodebuffer' });
}

function minimalPdf(text: string): Buffer {
  const safe = text.replace(/[()\\]/g, ' ');
  return Buffer.from(
    `%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj\n3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 300 100]/Contents 4 0 R/Resources<</Font<</F1 5 0 R>>>>>>endobj\n4 0 obj<</Length ${safe.length + 30}>>stream\nBT /F1 12 Tf 10 50 Td (${safe}) Tj ET\nendstream endobj\n5 0 obj<</Type/Font/Subtype/Type1/BaseFont/Helvetica>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n`,
  );
}

function apiError(code: number, message: string, reason: string) {
  return { error: { code, message, errors: [{ domain: 'global', reason, message }] } };
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=UTF-8',
    'content-length': String(Buffer.byteLength(text)),
  });
  res.end(text);
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
