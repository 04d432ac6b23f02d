/**
 * The production bundle: `dist/main.js` and the chunks of what loads on first use, built from
 * src/main.ts by esbuild, for `npm start`, `npm run worker` and the Docker image. Tests and
 * `npm run dev` run the sources.
 *
 * Why: V8 keeps the source of every loaded file and a module record for each. The idle process
 * loads ~1,600 files (5.7 MB of TypeScript and packages, much of it comments, some of it stored as
 * two-byte strings for one non-ASCII character); one minified ASCII file takes ~20 MiB off the idle
 * RSS (docs/benchmarks.md, "Idle memory").
 *
 * What stays outside the bundle:
 * - files reached by URL at run time: every `import.meta.url` in src is rewritten to the source
 *   file's own location (relative to the bundle, so dist/ must sit beside src/), so worker-thread
 *   entries (which run the TypeScript sources in their own thread), the console's static files,
 *   the migrations folder listing and `createRequire` resolve exactly as from the sources;
 * - EXTERNAL packages, loaded from node_modules as before: native or asset-reading ones (their
 *   files are found relative to their own folder), and the SDKs loaded on first use only (they cost
 *   the idle process nothing, and keeping them whole keeps how they load unchanged).
 *
 *   node scripts/bundle.ts [--if-stale] [--outdir DIR]
 *
 * `--if-stale` (what `npm start` runs first) builds only when a file under src/ or the lockfile is
 * newer than the bundle.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { Plugin } from 'esbuild';
import { buildConsoleIfStale } from './build-console.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const SRC = path.join(ROOT, 'src');

const EXTERNAL = [
  // Native addons, WebAssembly and data files found relative to the package.
  'sharp',
  '@napi-rs/canvas',
  'tesseract.js',
  'tesseract.js-core',
  '@tesseract.js-data/eng',
  'unpdf',
  // Static files served from its own folder; pino starts transports from its own worker files.
  '@fastify/swagger-ui',
  'pino',
  // Loaded on first use (createRequire or import()).
  'pg',
  'jsonata',
  'compromise',
  '@marcbachmann/cel-js',
  're2js',
  'ioredis',
  'undici',
  'openai',
  'stripe',
  '@aws-sdk/*',
  '@googleapis/drive',
  'google-auth-library',
  '@modelcontextprotocol/sdk',
];

/** Points `import.meta.url` of each src file at that file, as seen from the output folder. */
function sourceLocations(outdir: string): Plugin {
  return {
    name: 'source-locations',
    setup(b) {
      b.onLoad({ filter: /\.ts$/ }, (args) => {
        if (!args.path.startsWith(SRC + path.sep)) return undefined;
        const text = fs.readFileSync(args.path, 'utf8');
        if (!text.includes('import.meta.url')) return undefined;
        const relative = path.relative(outdir, args.path).split(path.sep).join('/');
        return {
          contents: text.replaceAll('import.meta.url', `new URL(${JSON.stringify(relative)}, import.meta.url).href`),
          loader: 'ts',
        };
      });
    },
  };
}

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) newest = Math.max(newest, fs.statSync(path.join(entry.parentPath, entry.name)).mtimeMs);
  }
  return newest;
}

function isStale(outdir: string): boolean {
  const built = fs.statSync(path.join(outdir, 'main.js'), { throwIfNoEntry: false })?.mtimeMs;
  if (built === undefined) return true;
  return Math.max(newestMtime(SRC), fs.statSync(path.join(ROOT, 'package-lock.json')).mtimeMs) > built;
}

/** Builds into a fresh folder beside `outdir`, then swaps it in, so a half-written bundle is never run. */
export async function bundle(outdir: string): Promise<void> {
  // Loaded here, not at the top: the staleness check `npm start` runs first should stay quick.
  const { build } = await import('esbuild');
  const staging = `${outdir}.${process.pid}.tmp`;
  fs.rmSync(staging, { recursive: true, force: true });
  await build({
    entryPoints: [path.join(SRC, 'main.ts')],
    outdir: staging,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node24',
    minify: true,
    // Non-ASCII characters escaped: V8 stores a source with any of them as two bytes per character.
    charset: 'ascii',
    legalComments: 'none',
    external: EXTERNAL,
    // CommonJS packages inside the bundle call require() for Node's modules.
    banner: {
      js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
    },
    // Relative to the final folder: the staging folder is renamed into place.
    plugins: [sourceLocations(outdir)],
    logLevel: 'warning',
  });
  fs.rmSync(outdir, { recursive: true, force: true });
  try {
    fs.renameSync(staging, outdir);
  } catch (error) {
    // Another process built the same sources at the same time and swapped its folder in first.
    fs.rmSync(staging, { recursive: true, force: true });
    if ((error as NodeJS.ErrnoException).code !== 'ENOTEMPTY' && (error as NodeJS.ErrnoException).code !== 'EEXIST')
      throw error;
  }
}

/** Builds only when a file under src/ or the lockfile is newer than the bundle (what `npm start` runs first). */
export async function bundleIfStale(outdir: string): Promise<void> {
  if (isStale(outdir)) await bundle(outdir);
}

if (import.meta.main) {
  const { values } = parseArgs({ options: { 'if-stale': { type: 'boolean' }, outdir: { type: 'string' } } });
  const outdir = path.resolve(values.outdir ?? path.join(ROOT, 'dist'));
  await (values['if-stale'] ? bundleIfStale(outdir) : bundle(outdir));
  // The web console's browser bundle (its own output folder, survives the image's prune).
  await buildConsoleIfStale();
}
