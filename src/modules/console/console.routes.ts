import { createHash } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { stripTypeScriptTypes } from 'node:module';
import { brotliCompressSync, gzipSync, constants as zlib } from 'node:zlib';
import type { App } from '../../http/fastify-types.ts';

const PUBLIC = new URL('./public/', import.meta.url);
const TYPES: Record<string, string> = {
  html: 'text/html; charset=utf-8',
  css: 'text/css; charset=utf-8',
  ts: 'text/javascript; charset=utf-8',
};

/** The files the console serves: those of public/ with a known type, listed once (nothing else is reachable). */
function servedFiles(): Map<string, string> {
  const files = new Map<string, string>();
  for (const name of readdirSync(PUBLIC)) {
    const type = TYPES[name.slice(name.lastIndexOf('.') + 1)];
    if (type && /^[a-z][a-z-]*\.[a-z]+$/.test(name)) files.set(name, type);
  }
  return files;
}

/** A served file, prepared once: the body in each encoding a browser may ask for, and its validator. */
interface PreparedFile {
  type: string;
  etag: string;
  identity: Buffer;
  br: Buffer;
  gzip: Buffer;
}

/** The encoding to answer with: brotli when accepted (a quarter smaller than gzip on these files), else gzip, else none. */
function pickEncoding(header: string | undefined): 'br' | 'gzip' | null {
  const accepted = new Set<string>();
  for (const part of (header ?? '').split(',')) {
    const [name = '', ...params] = part.split(';').map((piece) => piece.trim().toLowerCase());
    const q = params.find((param) => param.startsWith('q='));
    if (q === undefined || Number(q.slice(2)) > 0) accepted.add(name);
  }
  if (accepted.has('br')) return 'br';
  if (accepted.has('gzip')) return 'gzip';
  return null;
}

/**
 * The web console: static files at /console/, with `/` sending people there. The console's source
 * is TypeScript checked by `npm run typecheck` against the SDK's generated types; its types are
 * stripped once, on first request (Node's own stripper), so there is no build step and no bundle.
 * Each file is compressed once (brotli and gzip) and revalidated by ETag, so a returning browser
 * downloads nothing and a first visit ~20 KB.
 */
export function consoleRoutes(app: App): void {
  const files = servedFiles();
  const cache = new Map<string, Promise<PreparedFile>>();
  const prepare = async (name: string, type: string): Promise<PreparedFile> => {
    const source = await readFile(new URL(name, PUBLIC), 'utf8');
    const identity = Buffer.from(name.endsWith('.ts') ? stripTypeScriptTypes(source) : source);
    return {
      type,
      etag: `"${createHash('sha256').update(identity).digest('base64url').slice(0, 22)}"`,
      identity,
      br: brotliCompressSync(identity, { params: { [zlib.BROTLI_PARAM_QUALITY]: 11 } }),
      gzip: gzipSync(identity, { level: 9 }),
    };
  };
  const load = (name: string, type: string): Promise<PreparedFile> => {
    let file = cache.get(name);
    if (!file) {
      file = prepare(name, type);
      cache.set(name, file);
      file.catch(() => cache.delete(name));
    }
    return file;
  };
  app.get('/', { config: { auth: 'public', rateLimit: false }, schema: { hide: true } }, async (_request, reply) =>
    reply.redirect('/console/'),
  );
  app.get<{ Params: { file?: string } }>(
    '/console/:file?',
    { config: { auth: 'public', rateLimit: false }, schema: { hide: true } },
    async (request, reply) => {
      const name = request.params.file || 'index.html';
      const type = files.get(name);
      if (!type) return reply.code(404).type('text/plain').send('not found');
      const file = await load(name, type);
      reply.header('cache-control', 'no-cache').header('etag', file.etag).header('vary', 'accept-encoding');
      const match = request.headers['if-none-match'];
      if (match?.split(',').some((tag) => tag.trim().replace(/^W\//, '') === file.etag)) return reply.code(304).send();
      const encoding = pickEncoding(request.headers['accept-encoding']);
      if (encoding) reply.header('content-encoding', encoding);
      return reply.type(file.type).send(encoding ? file[encoding] : file.identity);
    },
  );
}
