import type { TableReference } from './table-references.ts';

/**
 * Who owns each table: a module (`identity`) or an infrastructure layer (`src/jobs`). Only the
 * owner's code names a table in SQL; everyone else goes through the owner's public entry.
 */
export type TableOwners = ReadonlyMap<string, string>;

/** `name: SomeTable; // owner: x` lines of an `interface DB { ... }` block. */
const DB_BLOCK = /interface DB\s*\{([^}]*)\}/g;
const DB_ENTRY = /^\s*([a-z_][a-z0-9_]*)\s*:\s*[A-Za-z_][A-Za-z0-9_]*\s*;[ \t]*(?:\/\/\s*owner:\s*(\S+))?/gm;

/** The tables of the `DB` interface(s) in a source, with the owner each one's comment names (if any). */
export function dbEntries(source: string): Array<{ table: string; owner: string | undefined }> {
  const entries: Array<{ table: string; owner: string | undefined }> = [];
  for (const block of source.matchAll(DB_BLOCK)) {
    for (const entry of block[1]!.matchAll(DB_ENTRY)) entries.push({ table: entry[1]!, owner: entry[2] });
  }
  return entries;
}

export interface SourceFile {
  file: string;
  source: string;
}

/**
 * The owner of every table: src/db/schema.ts's tables by their `// owner:` comment (a layer such
 * as `src/jobs` that `ownerExists` knows), a module's `*.tables.ts` tables by that module.
 * `problems` lists a table without an owner, an unknown owner, a table claimed twice, and a
 * module's table declared in src/db/schema.ts (each module declares what it owns, in the module).
 */
export function tableOwners(
  schema: SourceFile,
  moduleTables: SourceFile[],
  ownerExists: (owner: string) => boolean,
): { owners: TableOwners; problems: string[] } {
  const owners = new Map<string, string>();
  const problems: string[] = [];
  const claim = (table: string, owner: string, file: string) => {
    const earlier = owners.get(table);
    if (earlier !== undefined && earlier !== owner)
      problems.push(`${file}: table '${table}' is claimed by ${earlier} and ${owner}`);
    else owners.set(table, owner);
  };
  for (const { table, owner } of dbEntries(schema.source)) {
    if (owner === undefined)
      problems.push(`${schema.file}: table '${table}' has no '// owner: <module or layer>' comment`);
    else if (!ownerExists(owner)) problems.push(`${schema.file}: table '${table}': unknown owner '${owner}'`);
    else {
      if (!owner.startsWith('src/'))
        problems.push(
          `${schema.file}: table '${table}' belongs to ${owner}: declare it in src/modules/${owner}/<name>.tables.ts`,
        );
      claim(table, owner, schema.file);
    }
  }
  for (const { file, source } of moduleTables) {
    const module = moduleOf(file);
    if (module === undefined) problems.push(`${file}: a tables file outside src/modules/<name>/`);
    else for (const { table } of dbEntries(source)) claim(table, module, file);
  }
  return { owners, problems };
}

export interface Violation {
  file: string;
  line: number;
  table: string;
  owner: string;
}

/** The references in a module's file to tables another module or a layer owns. */
export function foreignReferences(
  file: string,
  module: string,
  references: TableReference[],
  owners: TableOwners,
): Violation[] {
  const violations: Violation[] = [];
  for (const { table, line } of references) {
    const owner = owners.get(table);
    if (owner !== undefined && owner !== module) violations.push({ file, line, table, owner });
  }
  return violations;
}

/** `src/modules/<name>/...` → `<name>`. */
export function moduleOf(file: string): string | undefined {
  return /^src\/modules\/([^/]+)\//.exec(file)?.[1];
}

export function describe(violation: Violation): string {
  const entry = violation.owner.startsWith('src/')
    ? `the ${violation.owner} API`
    : `src/modules/${violation.owner}/index.ts`;
  return `${violation.file}:${violation.line}  table '${violation.table}' belongs to ${violation.owner}: go through ${entry}`;
}
