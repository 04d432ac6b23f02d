// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the fixtures are source text whose templates the checker reads.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  describe as describeViolation,
  foreignReferences,
  moduleOf,
  tableOwners,
} from '../../scripts/table-owners/owners.ts';
import { tableReferences } from '../../scripts/table-owners/table-references.ts';

const tables = (source: string) => tableReferences(source).map((r) => `${r.line}:${r.table}`);

describe('tableReferences', () => {
  it('finds the tables of Kysely builders, with their aliases and lines', () => {
    const source = [
      "import type { Executor } from '../../db/executor.ts';",
      'export async function f(db: Executor, id: string): Promise<void> {',
      "  await db.selectFrom('documents as d').innerJoin('folders as f', 'f.id', 'd.folder_id').select('d.id').execute();",
      "  await db.insertInto('tags').values({ id } as never).execute();",
      "  await db.updateTable(`users`).set({ name: 'x' }).execute();",
      "  await db.deleteFrom('document_tags').where('tag_id', '=', id).execute();",
      "  await db.selectFrom(['workspaces', 'workspace_members as m']).leftJoin('api_keys', (j) => j.onTrue()).selectAll().execute();",
      '}',
    ].join('\n');
    assert.deepEqual(tables(source), [
      '3:documents',
      '3:folders',
      '4:tags',
      '5:users',
      '6:document_tags',
      '7:workspaces',
      '7:workspace_members',
      '7:api_keys',
    ]);
  });

  it('finds tables in subqueries and expression builders', () => {
    const source =
      "q.where((eb) => eb.exists(eb.selectFrom('document_shares').select('id')))\n  .where('id', 'in', (eb) => eb\n    .selectFrom('tags').select('id'));";
    assert.deepEqual(tables(source), ['1:document_shares', '3:tags']);
  });

  it('finds the tables raw SQL names after from, join, update, into and using, on the line they are on', () => {
    const source = [
      'await sql`update documents set storage_provider = ${p} where tenant_id = ${t} and id in (',
      '  select document_id from storage_migration_files f',
      '  join "folders" on true)`.execute(db);',
      'await sql`insert into events (id) values (${id})`.execute(db);',
      "await sql.raw('DELETE FROM jobs USING tenants WHERE 1 = 0').execute(db);",
      "const t = sql.table('chat_sessions');",
    ].join('\n');
    assert.deepEqual(tables(source), [
      '1:documents',
      '2:storage_migration_files',
      '3:folders',
      '4:events',
      '5:jobs',
      '5:tenants',
      '6:chat_sessions',
    ]);
  });

  it('ignores prose, comments, interpolations and untagged templates', () => {
    const source = [
      '// selectFrom("documents") in a comment, and the rows from users',
      "const message = 'moved from documents into folders';",
      'const text = `select * from users`;',
      'await sql`select 1 from ${sql.table(name)}`.execute(db);',
      "const n = db.selectFrom(tableName).select('id');",
    ].join('\n');
    assert.deepEqual(tables(source), []);
  });

  it('reads TypeScript: types, generics, assertions and satisfies do not hide a reference', () => {
    const source = [
      'interface Row { id: string }',
      "const rows = await db.selectFrom('users').select(['id']).execute() as Row[];",
      'const x = sql<{ n: number }>`select count(*) as n from api_keys`;',
      "const y = db.selectFrom('tags' as const)!.selectAll() satisfies unknown;",
    ].join('\n');
    assert.deepEqual(tables(source), ['2:users', '3:api_keys', '4:tags']);
  });
});

describe('tableOwners', () => {
  const schema = {
    file: 'src/db/schema.ts',
    source: [
      'export interface DB {',
      '  tenants: TenantsTable; // owner: identity',
      '  jobs: JobsTable; // owner: src/jobs',
      '  folders: FoldersTable;',
      '  ghosts: GhostsTable; // owner: nowhere',
      '}',
    ].join('\n'),
  };
  const moduleTables = [
    {
      file: 'src/modules/workflows/workflows.tables.ts',
      source: "declare module '../../db/schema.ts' {\n  interface DB {\n    workflows: WorkflowsTable;\n  }\n}",
    },
    {
      file: 'src/modules/search/search.tables.ts',
      source: 'declare module "x" { interface DB { tenants: TenantsTable; } }',
    },
  ];
  const known = new Set(['identity', 'src/jobs', 'workflows', 'search']);

  it('takes core tables from owner comments and module tables from their module', () => {
    const { owners } = tableOwners(schema, moduleTables, (o) => known.has(o));
    assert.deepEqual(Object.fromEntries(owners), { tenants: 'identity', jobs: 'src/jobs', workflows: 'workflows' });
  });

  it("reports a module's table declared in the schema, a table without an owner, an unknown owner and a table claimed twice", () => {
    const { problems } = tableOwners(schema, moduleTables, (o) => known.has(o));
    assert.deepEqual(problems, [
      "src/db/schema.ts: table 'tenants' belongs to identity: declare it in src/modules/identity/<name>.tables.ts",
      "src/db/schema.ts: table 'folders' has no '// owner: <module or layer>' comment",
      "src/db/schema.ts: table 'ghosts': unknown owner 'nowhere'",
      "src/modules/search/search.tables.ts: table 'tenants' is claimed by identity and search",
    ]);
  });
});

describe('foreignReferences', () => {
  const owners = new Map([
    ['documents', 'documents'],
    ['users', 'identity'],
    ['jobs', 'src/jobs'],
  ]);

  it("accepts a module's own tables and names that are not tables; fails another module's and a layer's", () => {
    const refs = [
      { table: 'documents', line: 1 },
      { table: 'd', line: 2 },
      { table: 'users', line: 3 },
      { table: 'jobs', line: 4 },
    ];
    const found = foreignReferences('src/modules/documents/shares/x.ts', 'documents', refs, owners);
    assert.deepEqual(found, [
      { file: 'src/modules/documents/shares/x.ts', line: 3, table: 'users', owner: 'identity' },
      { file: 'src/modules/documents/shares/x.ts', line: 4, table: 'jobs', owner: 'src/jobs' },
    ]);
    assert.equal(
      describeViolation(found[0]!),
      "src/modules/documents/shares/x.ts:3  table 'users' belongs to identity: go through src/modules/identity/index.ts",
    );
    assert.equal(
      describeViolation(found[1]!),
      "src/modules/documents/shares/x.ts:4  table 'jobs' belongs to src/jobs: go through the src/jobs API",
    );
  });

  it('knows the module of a file', () => {
    assert.equal(moduleOf('src/modules/identity/users/users.repository.ts'), 'identity');
    assert.equal(moduleOf('src/http/idempotency.repository.ts'), undefined);
  });
});
