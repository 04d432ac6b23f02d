/**
 * Every table has one owner, and only the owner's code names it in SQL (docs/architecture.md,
 * "Tables have owners"). A module's tables are the ones its `*.tables.ts` merges into `DB`; the
 * tables of src/db/schema.ts name their owner in a `// owner: <module or layer>` comment. Scans
 * src/modules for Kysely and raw-SQL table references and fails naming file:line, table and owner.
 * Migrations are not scanned: they are the schema. `npm run lint` runs this.
 */
import { existsSync, globSync, readFileSync } from 'node:fs';
import {
  describe,
  foreignReferences,
  moduleOf,
  type SourceFile,
  tableOwners,
  type Violation,
} from './table-owners/owners.ts';
import { tableReferences } from './table-owners/table-references.ts';

const read = (file: string): SourceFile => ({ file, source: readFileSync(file, 'utf8') });
const ownerExists = (owner: string) => existsSync(owner.startsWith('src/') ? owner : `src/modules/${owner}`);

const { owners, problems } = tableOwners(
  read('src/db/schema.ts'),
  globSync('src/modules/**/*.tables.ts').sort().map(read),
  ownerExists,
);

const violations: Violation[] = [];
for (const { file, source } of globSync('src/modules/**/*.ts').sort().map(read)) {
  violations.push(...foreignReferences(file, moduleOf(file)!, tableReferences(source), owners));
}

problems.push(...violations.map(describe));
if (problems.length > 0) {
  console.error(`table owners: ${problems.length} problem(s)\n${problems.map((p) => `  ${p}`).join('\n')}`);
  process.exitCode = 1;
} else {
  console.log(`table owners: ${owners.size} tables, each named in SQL only by its owner`);
}
