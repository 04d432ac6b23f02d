/**
 * The module template, checked (docs/architecture.md, "The module template"); `npm run lint` runs
 * this beside check-table-owners.ts. Each rule fails naming file:line:
 *
 * - a module's job kinds are declared (`interface JobPayloads`) only in its `<module>.jobs.ts`;
 * - a module's events are declared (`interface EventDataMap`) only in its `<module>.events.ts`;
 * - every error code made with `new AppError(status, 'code', ...)` is one the catalogue
 *   (src/lib/errors.ts) makes: a code the contract answers is found in one file;
 * - a finder (`find*` / `get*` returning a promise) answers "not found" with `null`, never `undefined`.
 */
import { globSync, readFileSync } from 'node:fs';

interface Problem {
  file: string;
  line: number;
  message: string;
}

const problems: Problem[] = [];
const lineOf = (source: string, index: number) => source.slice(0, index).split('\n').length;
const sources = globSync('src/**/*.ts')
  .sort()
  .map((file) => ({ file, source: readFileSync(file, 'utf8') }));

/** `src/modules/<module>/...` -> `<module>`; null outside the modules. */
const moduleOf = (file: string) => /^src\/modules\/([^/]+)\//.exec(file)?.[1] ?? null;

const catalogue = readFileSync('src/lib/errors.ts', 'utf8');
const catalogueCodes = new Set([...catalogue.matchAll(/new AppError\(\s*[\w.]+,\s*'([a-z_]+)'/g)].map((m) => m[1]!));

for (const { file, source } of sources) {
  const module = moduleOf(file);
  for (const [name, suffix] of [
    ['JobPayloads', 'jobs'],
    ['EventDataMap', 'events'],
  ] as const) {
    for (const match of source.matchAll(new RegExp(`interface ${name}\\b`, 'g'))) {
      if (module === null || file === `src/modules/${module}/${module}.${suffix}.ts`) continue;
      problems.push({ file, line: lineOf(source, match.index), message: `${name} is declared in src/modules/${module}/${module}.${suffix}.ts only` });
    }
  }
  if (file !== 'src/lib/errors.ts') {
    for (const match of source.matchAll(/new AppError\(\s*[\w.]+,\s*'([a-z_]+)'/g)) {
      if (catalogueCodes.has(match[1]!)) continue;
      problems.push({ file, line: lineOf(source, match.index), message: `error code '${match[1]}' is not made by src/lib/errors.ts: add a factory there` });
    }
  }
  for (const match of source.matchAll(/\b(?:async\s+)?((?:find|get)\w*)\([^)]*\):\s*Promise<[^>]*\|\s*undefined>/g)) {
    problems.push({ file, line: lineOf(source, match.index), message: `finder ${match[1]} answers "not found" with undefined; use null` });
  }
}

if (problems.length > 0) {
  console.error(`template: ${problems.length} problem(s)\n${problems.map((p) => `  ${p.file}:${p.line}: ${p.message}`).join('\n')}`);
  process.exitCode = 1;
} else {
  console.log(`template: ${sources.length} files; job kinds and events declared in their module's files, error codes in the catalogue, finders answer null`);
}
