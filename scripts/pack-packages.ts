/**
 * Publishable tarballs of the SDK and the CLI (`npm run pack:packages`).
 *
 * In this repository both packages export their TypeScript sources, which Node runs directly
 * (the workspace links them from outside node_modules). Installed from a registry they would sit
 * inside node_modules, where Node refuses to strip types. So each is compiled by the repository's
 * `tsc` (JavaScript + declarations, `.ts` import specifiers rewritten to `.js`) into a staging
 * folder with a package.json that points at the compiled files, and packed there with `npm pack`.
 *
 *   node scripts/pack-packages.ts [--out DIR]      (default dist/packages; prints the tarballs' paths)
 *
 * The packages stay `private` in the repository (publishing is a decision, not a build step); the
 * staged package.json drops the flag so `npm publish <tarball>` works once it is taken.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';

const ROOT = path.resolve(import.meta.dirname, '..');
const TSC = path.join(ROOT, 'node_modules/typescript/bin/tsc');

interface Manifest {
  name: string;
  version: string;
  private?: boolean;
  exports?: unknown;
  bin?: Record<string, string>;
  files?: string[];
  scripts?: Record<string, string>;
  [key: string]: unknown;
}

/** Compiles one package into `stage/dist` and writes its publishable manifest; answers the tarball's path. */
function pack(dir: string, out: string): string {
  const source = path.join(ROOT, 'packages', dir);
  const stage = path.join(out, dir);
  fs.rmSync(stage, { recursive: true, force: true });
  fs.mkdirSync(stage, { recursive: true });
  const roots = ['src', 'bin'].filter((d) => fs.existsSync(path.join(source, d)));
  const tsconfig = path.join(stage, 'tsconfig.json');
  fs.writeFileSync(
    tsconfig,
    JSON.stringify({
      extends: path.join(ROOT, 'tsconfig.json'),
      compilerOptions: {
        noEmit: false,
        declaration: true,
        rewriteRelativeImportExtensions: true,
        rootDir: source,
        outDir: path.join(stage, 'dist'),
        // Resolved from the staging folder otherwise, where there is no node_modules.
        typeRoots: [path.join(ROOT, 'node_modules/@types')],
      },
      include: roots.map((d) => path.join(source, d)),
    }),
  );
  execFileSync(process.execPath, [TSC, '-p', tsconfig], { stdio: 'inherit' });
  fs.rmSync(tsconfig);

  const manifest = JSON.parse(fs.readFileSync(path.join(source, 'package.json'), 'utf8')) as Manifest;
  const { private: _private, scripts: _scripts, ...published } = manifest;
  const compiled = (file: string) => `./${path.posix.join('dist', file.replace(/^\.\//, '').replace(/\.ts$/, '.js'))}`;
  if (typeof manifest.exports === 'object' && manifest.exports) {
    published.exports = Object.fromEntries(
      Object.entries(manifest.exports as Record<string, string>).map(([key, file]) => [
        key,
        { types: compiled(file).replace(/\.js$/, '.d.ts'), default: compiled(file) },
      ]),
    );
  }
  if (manifest.bin)
    published.bin = Object.fromEntries(Object.entries(manifest.bin).map(([name, file]) => [name, compiled(file)]));
  published.files = ['dist'];
  fs.writeFileSync(path.join(stage, 'package.json'), `${JSON.stringify(published, null, 2)}\n`);
  for (const extra of ['README.md', 'LICENSE']) {
    if (fs.existsSync(path.join(source, extra))) fs.copyFileSync(path.join(source, extra), path.join(stage, extra));
  }
  const name = execFileSync('npm', ['pack', '--silent', '--pack-destination', out], { cwd: stage, encoding: 'utf8' })
    .trim()
    .split('\n')
    .pop()!;
  return path.join(out, name);
}

const { values } = parseArgs({ options: { out: { type: 'string' } } });
const out = path.resolve(values.out ?? path.join(ROOT, 'dist/packages'));
fs.mkdirSync(out, { recursive: true });
for (const dir of ['sdk', 'cli']) console.log(pack(dir, out));
