/**
 * The module template, checked (docs/architecture.md, "The module template"); `npm run lint` runs
 * this beside check-table-owners.ts. The rules are in scripts/template/rules.ts (job kinds and
 * events declared in their module's files, error codes in the catalogue, finders answer null,
 * presenters in presenter files); each problem is reported as file:line.
 */
import { globSync, readFileSync } from 'node:fs';
import { catalogueCodes, templateProblems } from './template/rules.ts';

const sources = globSync('src/**/*.ts')
  .sort()
  .map((file) => ({ file, source: readFileSync(file, 'utf8') }));
const problems = templateProblems(sources, catalogueCodes(readFileSync('src/lib/errors.ts', 'utf8')));

if (problems.length > 0) {
  console.error(
    `template: ${problems.length} problem(s)\n${problems.map((p) => `  ${p.file}:${p.line}: ${p.message}`).join('\n')}`,
  );
  process.exitCode = 1;
} else {
  console.log(
    `template: ${sources.length} files; job kinds and events declared in their module's files, error codes in the catalogue, finders answer null, presenters in presenter files`,
  );
}
