import assert from 'node:assert/strict';
import fs from 'node:fs';
import { it } from 'node:test';

type LockEntry = {
  version?: string;
  optionalDependencies?: Record<string, string>;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
};
const lock = JSON.parse(fs.readFileSync(new URL('../../package-lock.json', import.meta.url), 'utf8')) as {
  packages: Record<string, LockEntry>;
};
const manifest = JSON.parse(fs.readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as LockEntry;

/** Where npm would find `name` for the package at `from`: nested first, then each parent, then the top. */
function resolves(from: string, name: string): boolean {
  let base = from;
  for (;;) {
    if (lock.packages[`${base ? `${base}/` : ''}node_modules/${name}`]) return true;
    if (!base) return false;
    const cut = base.lastIndexOf('/node_modules/');
    base = cut < 0 ? '' : base.slice(0, cut);
  }
}

it('the lockfile holds every optional platform package, so `npm ci` works on any platform', () => {
  const missing: string[] = [];
  for (const [path, entry] of Object.entries(lock.packages)) {
    for (const name of Object.keys(entry.optionalDependencies ?? {})) {
      if (!resolves(path, name)) missing.push(`${path || '(root)'} -> ${name}`);
    }
  }
  assert.deepEqual(missing, []);
});

it('the lockfile root lists exactly the dependencies of package.json', () => {
  const root = lock.packages['']!;
  assert.deepEqual(root.dependencies, manifest.dependencies);
  assert.deepEqual(root.devDependencies, manifest.devDependencies);
});
