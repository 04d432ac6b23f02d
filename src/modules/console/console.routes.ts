import { readdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { stripTypeScriptTypes } from 'node:module';
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

/**
 * The web console: static files at /console/, with `/` sending people there. The console's source
 * is TypeScript checked by `npm run typecheck` against the SDK's generated types; its types are
 * stripped once, on first request (Node's own stripper), so there is no build step and no bundle.
 */
export function consoleRoutes(app: App): void {
  const files = servedFiles();
  const cache = new Map<string, string>();
  const load = async (name: string): Promise<string> => {
    let body = cache.get(name);
    if (body === undefined) {
      const source = await readFile(new URL(name, PUBLIC), 'utf8');
      body = name.endsWith('.ts') ? stripTypeScriptTypes(source) : source;
      cache.set(name, body);
    }
    return body;
  };
  app.get('/', { config: { auth: 'public', rateLimit: false }, schema: { hide: true } }, async (_request, reply) => reply.redirect('/console/'));
  app.get<{ Params: { file?: string } }>('/console/:file?', { config: { auth: 'public', rateLimit: false }, schema: { hide: true } }, async (request, reply) => {
    const name = request.params.file || 'index.html';
    const type = files.get(name);
    if (!type) return reply.code(404).type('text/plain').send('not found');
    return reply.type(type).header('cache-control', 'no-cache').send(await load(name));
  });
}
