/**
 * The rules of the module template (docs/architecture.md, "The module template"), as a pure
 * function of source texts so that test/architecture/template.test.ts can show what each catches;
 * scripts/check-template.ts runs them over src/ in `npm run lint`.
 */

export interface SourceFile {
  file: string;
  source: string;
}

export interface Problem {
  file: string;
  line: number;
  message: string;
}

const lineOf = (source: string, index: number) => source.slice(0, index).split('\n').length;

/** `src/modules/<module>/...` -> `<module>`; null outside the modules. */
const moduleOf = (file: string) => /^src\/modules\/([^/]+)\//.exec(file)?.[1] ?? null;

const APP_ERROR = /new AppError\(\s*[\w.]+,\s*'([a-z_]+)'/g;

/** The error codes the catalogue (src/lib/errors.ts) makes with `new AppError(status, 'code', ...)`. */
export function catalogueCodes(catalogue: string): Set<string> {
  return new Set([...catalogue.matchAll(APP_ERROR)].map((m) => m[1]!));
}

/**
 * Every break of the template in `sources` (paths relative to the repository, `src/...`):
 *
 * - a module's job kinds are declared (`interface JobPayloads`) only in its `<module>.jobs.ts`;
 * - a module's events are declared (`interface EventDataMap`) only in its `<module>.events.ts`;
 * - every error code made with `new AppError(status, 'code', ...)` is one the catalogue
 *   (src/lib/errors.ts) makes: a code the contract answers is found in one file;
 * - a finder (`find*` / `get*` returning a promise) answers "not found" with `null`, never `undefined`;
 * - a module's presenters (`present*` functions) live in a `*.presenter.ts` file, not in its
 *   schemas or routes.
 */
export function templateProblems(sources: readonly SourceFile[], codes: ReadonlySet<string>): Problem[] {
  const problems: Problem[] = [];
  for (const { file, source } of sources) {
    const module = moduleOf(file);
    for (const [name, suffix] of [
      ['JobPayloads', 'jobs'],
      ['EventDataMap', 'events'],
    ] as const) {
      for (const match of source.matchAll(new RegExp(`interface ${name}\\b`, 'g'))) {
        if (module === null || file === `src/modules/${module}/${module}.${suffix}.ts`) continue;
        problems.push({
          file,
          line: lineOf(source, match.index),
          message: `${name} is declared in src/modules/${module}/${module}.${suffix}.ts only`,
        });
      }
    }
    if (file !== 'src/lib/errors.ts') {
      for (const match of source.matchAll(APP_ERROR)) {
        if (codes.has(match[1]!)) continue;
        problems.push({
          file,
          line: lineOf(source, match.index),
          message: `error code '${match[1]}' is not made by src/lib/errors.ts: add a factory there`,
        });
      }
    }
    for (const match of source.matchAll(/\b(?:async\s+)?((?:find|get)\w*)\([^)]*\):\s*Promise<[^>]*\|\s*undefined>/g)) {
      problems.push({
        file,
        line: lineOf(source, match.index),
        message: `finder ${match[1]} answers "not found" with undefined; use null`,
      });
    }
    if (module !== null && !file.endsWith('.presenter.ts')) {
      for (const match of source.matchAll(/^(?:export\s+)?function\s+(present[A-Z]\w*)/gm)) {
        problems.push({
          file,
          line: lineOf(source, match.index),
          message: `presenter ${match[1]} belongs in a *.presenter.ts file beside it`,
        });
      }
    }
  }
  return problems;
}
