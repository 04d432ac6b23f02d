/**
 * Builds the web console (src/modules/console/app/, Preact) for the browser with esbuild: one
 * entry, a chunk per view (loaded when first shown), minified, with content-hashed chunk names;
 * pdf.js's worker copied beside it (loaded only by a PDF preview). Nothing is fetched at run time
 * from anywhere but the service. The output goes to node_modules/.cache/docuvault/console/, which
 * survives `npm prune --omit=dev` in the image; the service serves it at /console/.
 *
 *   node scripts/build-console.ts [--if-stale]
 *
 * Run by `npm ci` (postinstall), `npm start`, `npm test` (pre-scripts), scripts/bundle.ts, and by the
 * service itself on first request when the output is missing or older than its sources (development).
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { Plugin } from 'esbuild';

const ROOT = path.resolve(import.meta.dirname, '..');
export const CONSOLE_SOURCES = path.join(ROOT, 'src/modules/console/app');
export const CONSOLE_OUT = path.join(ROOT, 'node_modules/.cache/docuvault/console');
const SDK = path.join(ROOT, 'packages/sdk/src');

/** The SDK's Node-only helpers (upload from a path, download to a file) are never called in the browser: empty modules stand in. */
function nodeBuiltinsEmpty(): Plugin {
  return {
    name: 'node-builtins-empty',
    setup(b) {
      b.onResolve({ filter: /^node:/ }, (args) => ({ path: args.path, namespace: 'node-empty' }));
      b.onLoad({ filter: /.*/, namespace: 'node-empty' }, () => ({
        contents:
          'export const openAsBlob = undefined, basename = undefined, Readable = undefined, createWriteStream = undefined, pipeline = undefined; export default {};',
        loader: 'js',
      }));
    },
  };
}

function newest(dir: string): number {
  let newestMs = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) newestMs = Math.max(newestMs, fs.statSync(path.join(entry.parentPath, entry.name)).mtimeMs);
  }
  return newestMs;
}

/** Whether the built console is missing or older than its sources, the SDK or the lockfile. */
export function consoleIsStale(): boolean {
  const built = fs.statSync(path.join(CONSOLE_OUT, 'manifest.json'), { throwIfNoEntry: false })?.mtimeMs;
  if (built === undefined) return true;
  const lock = fs.statSync(path.join(ROOT, 'package-lock.json'), { throwIfNoEntry: false })?.mtimeMs ?? 0;
  return Math.max(newest(CONSOLE_SOURCES), newest(SDK), lock, fs.statSync(import.meta.filename).mtimeMs) > built;
}

/** Builds into a staging folder, then swaps it in (two processes building at once both end with a whole folder). */
export async function buildConsole(outdir = CONSOLE_OUT): Promise<void> {
  const { build } = await import('esbuild');
  const staging = `${outdir}.${process.pid}.${Date.now()}.tmp`;
  fs.rmSync(staging, { recursive: true, force: true });
  const result = await build({
    entryPoints: { main: path.join(CONSOLE_SOURCES, 'main.ts'), style: path.join(CONSOLE_SOURCES, 'style.css') },
    outdir: staging,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'browser',
    target: ['chrome120', 'firefox120', 'safari17'],
    minify: true,
    charset: 'utf8',
    legalComments: 'none',
    entryNames: '[name]-[hash]',
    chunkNames: 'chunk-[hash]',
    metafile: true,
    define: { 'process.env.NODE_ENV': '"production"' },
    plugins: [nodeBuiltinsEmpty()],
    logLevel: 'warning',
  });
  fs.copyFileSync(
    path.join(ROOT, 'node_modules/pdfjs-dist/build/pdf.worker.min.mjs'),
    path.join(staging, 'pdf.worker.min.mjs'),
  );
  const outputs = Object.entries(result.metafile.outputs);
  const entry = (name: string) =>
    path.basename(
      outputs.find(
        ([file, o]) => o.entryPoint && path.basename(file).startsWith(`${name}-`) && !file.endsWith('.map'),
      )?.[0] ?? '',
    );
  const files = [...fs.readdirSync(staging)];
  const manifest = { main: entry('main'), style: entry('style'), files };
  fs.writeFileSync(path.join(staging, 'manifest.json'), JSON.stringify(manifest, null, 2));
  fs.rmSync(outdir, { recursive: true, force: true });
  try {
    fs.renameSync(staging, outdir);
  } catch (error) {
    fs.rmSync(staging, { recursive: true, force: true });
    if ((error as NodeJS.ErrnoException).code !== 'ENOTEMPTY' && (error as NodeJS.ErrnoException).code !== 'EEXIST')
      throw error;
  }
}

export async function buildConsoleIfStale(): Promise<void> {
  if (consoleIsStale()) await buildConsole();
}

if (import.meta.main) {
  const { values } = parseArgs({ options: { 'if-stale': { type: 'boolean' } } });
  // `npm ci` in the image runs before the sources are copied in: scripts/bundle.ts builds it there.
  if (!fs.existsSync(CONSOLE_SOURCES)) console.log('build-console: no console sources here yet; skipped');
  else if (
    !(await import('esbuild').then(
      () => true,
      () => false,
    ))
  )
    console.log('build-console: esbuild is not installed (production-only install); skipped');
  else await (values['if-stale'] ? buildConsoleIfStale() : buildConsole());
}
