import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { brotliCompressSync, gzipSync, constants as zlib } from 'node:zlib';
import type { App } from '../../http/fastify-types.ts';

// The built console (scripts/build-console.ts): bundled by esbuild from ./app/ into node_modules/.cache.
const OUT = new URL('../../../node_modules/.cache/docuvault/console/', import.meta.url);
const BUILDER = new URL('../../../scripts/build-console.ts', import.meta.url);
const TYPES: Record<string, string> = {
  js: 'text/javascript; charset=utf-8',
  mjs: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  html: 'text/html; charset=utf-8',
};

interface Prepared {
  type: string;
  etag: string;
  identity: Buffer;
  br: Buffer;
  gzip: Buffer;
  immutable: boolean;
}

function prepare(body: Buffer, type: string, immutable: boolean): Prepared {
  // Brotli's best quality costs seconds on pdf.js's megabyte: the large files get a quicker level.
  const quality = body.length > 256 * 1024 ? 7 : 11;
  return {
    type,
    etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`,
    identity: body,
    br: brotliCompressSync(body, { params: { [zlib.BROTLI_PARAM_QUALITY]: quality } }),
    gzip: gzipSync(body, { level: body.length > 256 * 1024 ? 6 : 9 }),
    immutable,
  };
}

function page(manifest: { main: string; style: string }): string {
  // The theme is set before the first paint (no flash of the wrong colours); the rest is the module.
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>DocuVault</title>
<link rel="stylesheet" href="/console/${manifest.style}">
<script type="module" src="/console/${manifest.main}"></script>
<script>document.documentElement.dataset.theme=localStorage.getItem('docuvault.console.theme')||(matchMedia('(prefers-color-scheme: dark)').matches?'dark':'light')</script>
</head>
<body><div id="app"></div><noscript>The console needs JavaScript.</noscript></body>
</html>
`;
}

/**
 * The console at /console/ (Preact, bundled and code-split by esbuild; docs/console.md), with `/`
 * sending people there. Files are read from the build output once, compressed once (brotli, gzip)
 * and revalidated by ETag; the content-hashed chunks are cached for a year. Where the output is
 * missing or older than its sources (a development checkout), the first request builds it.
 */
export function consoleRoutes(app: App): void {
  // The manifest is read once (after building, where the output is stale); each file is prepared on its first request.
  let ready: Promise<Map<string, () => Promise<Prepared>>> | null = null;
  const load = async (): Promise<Map<string, () => Promise<Prepared>>> => {
    const builder = (await import(BUILDER.href).catch(() => null)) as { buildConsoleIfStale(): Promise<void> } | null;
    // A failed build (say, no esbuild in a pruned image) still serves an existing output.
    await (builder ? builder.buildConsoleIfStale() : Promise.reject(new Error('no console builder'))).catch(
      async (error) => {
        if (!(await stat(new URL('manifest.json', OUT)).catch(() => null))) throw error;
      },
    );
    const manifest = JSON.parse(await readFile(new URL('manifest.json', OUT), 'utf8')) as {
      main: string;
      style: string;
      files: string[];
    };
    const files = new Map<string, () => Promise<Prepared>>();
    const once = (make: () => Promise<Prepared>) => {
      let made: Promise<Prepared> | null = null;
      return () => {
        made ??= make();
        made.catch(() => {
          made = null;
        });
        return made;
      };
    };
    files.set(
      'index.html',
      once(async () => prepare(Buffer.from(page(manifest)), TYPES['html'] as string, false)),
    );
    for (const name of manifest.files) {
      const type = TYPES[name.slice(name.lastIndexOf('.') + 1)];
      if (type)
        files.set(
          name,
          once(async () => prepare(await readFile(new URL(name, OUT)), type, /-[A-Z0-9]{8}\.(js|css)$/.test(name))),
        );
    }
    return files;
  };
  const files = () => {
    ready ??= load();
    ready.catch(() => {
      ready = null;
    });
    return ready;
  };
  const options = { config: { auth: 'public', rateLimit: false }, schema: { hide: true } } as const;
  app.get('/', options, async (_request, reply) => reply.redirect('/console/'));
  // The console was served at /console/next/ while it was being rebuilt: old bookmarks land on it
  // (a browser keeps the `#/…` part across the redirect).
  app.get('/console/next', options, async (_request, reply) => reply.redirect('/console/'));
  app.get('/console/next/*', options, async (_request, reply) => reply.redirect('/console/'));
  app.get<{ Params: { file?: string } }>('/console/:file?', options, async (request, reply) => {
    if (!request.params.file && !request.url.split('?')[0]?.endsWith('/')) return reply.redirect('/console/');
    const prepared = (await files()).get(request.params.file || 'index.html');
    if (!prepared) return reply.code(404).type('text/plain').send('not found');
    const file = await prepared();
    reply
      .header('cache-control', file.immutable ? 'public, max-age=31536000, immutable' : 'no-cache')
      .header('etag', file.etag)
      .header('vary', 'accept-encoding');
    const match = request.headers['if-none-match'];
    if (match?.split(',').some((tag) => tag.trim().replace(/^W\//, '') === file.etag)) return reply.code(304).send();
    const accepted = request.headers['accept-encoding'] ?? '';
    const encoding = /\bbr\b/.test(accepted) ? 'br' : /\bgzip\b/.test(accepted) ? 'gzip' : null;
    if (encoding) reply.header('content-encoding', encoding);
    return reply.type(file.type).send(encoding ? file[encoding] : file.identity);
  });
}
