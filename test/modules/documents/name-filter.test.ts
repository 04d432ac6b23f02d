import assert from 'node:assert/strict';
import { it } from 'node:test';
import { sql } from 'kysely';
import * as nameIndex from '../../../src/db/migrations/20261127_2100_document_name_index.ts';
import type { Executor } from '../../../src/db/executor.ts';
import { type DocumentListFilter, DocumentsRepository } from '../../../src/modules/documents/documents.repository.ts';
import { likePattern, trigramPhrase, trigramServes } from '../../../src/modules/documents/name-filter.ts';
import { describeEachDialect } from '../../support/app.ts';
import { documentRow } from '../../support/document-rows.ts';
import { createTenant, loginAs } from '../../support/fixtures.ts';

// The filename filter served by the trigram index answers exactly what the plain scan
// (`lower(filename) LIKE '%…%' ESCAPE '\'` over the tenant's documents) answers.

const NAMES = [
  'Quarterly Report 2024.pdf',
  'quarterly-report_final.PDF',
  '50% discount.txt',
  '50 percent.txt',
  'a_b.txt',
  'axb.txt',
  'ab.txt',
  'back\\slash.txt',
  'Ünïcödé Straße.docx',
  'ÉCOLE notes.txt',
  'école notes.txt',
  '日本語の書類.pdf',
  'emoji 📄 file.txt',
  'quote "x" name.txt',
  "o'brien.txt",
  'İstanbul.txt',
  'ﬁnance.txt',
  'MiXeD CaSe.TXT',
  'x.txt',
];

const SEARCHES = [
  'report',
  'REPORT',
  'rt 2',
  'ly-rep',
  '50%',
  '%',
  '%%%',
  '_',
  'a_b',
  '_b.',
  '\\',
  'k\\s',
  'straße',
  'STRASSE',
  'ünï',
  'ÜNÏCÖ',
  'école',
  'ÉCOLE',
  'cole n',
  '日本',
  '日本語',
  '📄',
  '📄 f',
  '"x"',
  '"',
  "o'b",
  'istanbul',
  'İst',
  'fin',
  'ﬁn',
  'x',
  '.t',
  'txt',
  'mixed case',
  'nothing like it',
];

const repository = new DocumentsRepository();
const page = { sort: 'name' as const, order: 'asc' as const, limit: 100, offset: 0 };

/** The answer of the scan the index replaces. */
async function scanned(db: Executor, tenantId: string, search: string, ownerId?: string): Promise<string[]> {
  const rows = await sql<{ id: string }>`select id from documents where tenant_id = ${tenantId}
    and lower(filename) like ${likePattern(search)} escape '\\' ${ownerId ? sql`and owner_id = ${ownerId}` : sql``}`.execute(
    db,
  );
  return rows.rows.map((r) => r.id).sort();
}

async function listed(
  db: Executor,
  tenantId: string,
  filter: DocumentListFilter,
): Promise<{ ids: string[]; total: number }> {
  const docs = await repository.list(db, tenantId, filter, page);
  return { ids: docs.map((d) => d.id).sort(), total: await repository.count(db, tenantId, filter) };
}

describeEachDialect('filename filter on the trigram index', (ctx, dialect) => {
  let tenantId: string;
  let otherTenantId: string;
  let memberId: string;

  it('answers what the scan answers, for owners and members, in one tenant only', async () => {
    const t = ctx();
    const db = t.container.database.db;
    const tenant = await createTenant(t);
    const other = await createTenant(t);
    tenantId = tenant.tenantId;
    otherTenantId = other.tenantId;
    memberId = (await loginAs(t, tenant, 'member')).userId;
    // Every other name is the member's own (so they see it); the other tenant holds the same names.
    await db
      .insertInto('documents')
      .values([
        ...NAMES.map((filename, i) =>
          documentRow(tenantId, `doc-a-${i}`, { filename, ...(i % 2 === 0 ? { owner_id: memberId } : {}) }),
        ),
        ...NAMES.map((filename, i) => documentRow(otherTenantId, `doc-b-${i}`, { filename })),
      ])
      .execute();

    for (const search of SEARCHES) {
      const expected = await scanned(db, tenantId, search);
      const owner = await listed(db, tenantId, { scope: null, search });
      assert.deepEqual(owner.ids, expected, `owner: ${search}`);
      assert.equal(owner.total, expected.length, `owner total: ${search}`);
      const member = await listed(db, tenantId, { scope: { userId: memberId, sharedOnly: false }, search });
      assert.deepEqual(member.ids, await scanned(db, tenantId, search, memberId), `member: ${search}`);
      assert.equal(member.total, member.ids.length, `member total: ${search}`);
      assert.ok(
        owner.ids.every((id) => id.startsWith('doc-a-')),
        `tenant isolation: ${search}`,
      );
    }
    // The cases the tricky characters are there for, stated outright.
    assert.deepEqual((await listed(db, tenantId, { scope: null, search: '50%' })).ids, ['doc-a-2']);
    assert.deepEqual((await listed(db, tenantId, { scope: null, search: 'a_b' })).ids, ['doc-a-4']);
    assert.deepEqual((await listed(db, tenantId, { scope: null, search: 'REPORT' })).ids, ['doc-a-0', 'doc-a-1']);
    assert.equal((await listed(db, tenantId, { scope: null, search: '日本語' })).ids.length, 1);
    assert.equal((await listed(db, tenantId, { scope: null, search: 'k\\s' })).ids.length, 1);
  });

  it('follows inserts, renames and deletes', async () => {
    const db = ctx().container.database.db;
    await db
      .insertInto('documents')
      .values(documentRow(tenantId, 'doc-new', { filename: 'Zebra minutes.txt' }))
      .execute();
    assert.deepEqual((await listed(db, tenantId, { scope: null, search: 'zebra' })).ids, ['doc-new']);
    await db.updateTable('documents').set({ filename: 'Giraffe minutes.txt' }).where('id', '=', 'doc-new').execute();
    assert.deepEqual((await listed(db, tenantId, { scope: null, search: 'zebra' })).ids, []);
    assert.deepEqual((await listed(db, tenantId, { scope: null, search: 'giraffe' })).ids, ['doc-new']);
    // An update of other columns leaves the name's entry as it was.
    await db.updateTable('documents').set({ file_size: 42 }).where('id', '=', 'doc-new').execute();
    assert.deepEqual((await listed(db, tenantId, { scope: null, search: 'giraffe' })).ids, ['doc-new']);
    await db.deleteFrom('documents').where('id', '=', 'doc-new').execute();
    assert.deepEqual((await listed(db, tenantId, { scope: null, search: 'giraffe' })).ids, []);
    assert.deepEqual((await listed(db, tenantId, { scope: null, search: 'minutes' })).ids, []);
  });

  it('renames through the API are found by the new name only', async () => {
    const t = ctx();
    const tenant = await createTenant(t);
    const db = t.container.database.db;
    await db
      .insertInto('documents')
      .values(documentRow(tenant.tenantId, 'doc-api', { filename: 'Budget draft.txt' }))
      .execute();
    const renamed = await t.app.inject({
      method: 'PUT',
      url: '/api/v1/documents/doc-api',
      headers: tenant.headers,
      payload: { filename: 'Forecast final.txt' },
    });
    assert.equal(renamed.statusCode, 200, renamed.body);
    const search = async (q: string) =>
      (
        await t.app.inject({ url: `/api/v1/documents?search=${encodeURIComponent(q)}`, headers: tenant.headers })
      ).json();
    assert.equal((await search('budget')).total, 0);
    assert.deepEqual(
      (await search('FORECAST')).data.map((d: { id: string }) => d.id),
      ['doc-api'],
    );
  });

  it('is built from the documents already there when the migration runs', async () => {
    const db = ctx().container.database.db;
    // In one transaction, as the migrator runs each migration.
    await db.transaction().execute(async (trx) => {
      await nameIndex.down(trx);
      await nameIndex.up(trx);
    });
    for (const search of ['report', 'école', '50%', 'ünï']) {
      assert.deepEqual(
        (await listed(db, tenantId, { scope: null, search })).ids,
        await scanned(db, tenantId, search),
        search,
      );
    }
  });

  it('serves 3 characters or more from the index', async () => {
    const db = ctx().container.database.db;
    if (dialect === 'sqlite') {
      const plan = await sql<{
        detail: string;
      }>`explain query plan select r.document_id from document_names n join document_name_rows r on r.id = n.rowid
        where document_names match ${trigramPhrase('report')} and r.tenant_id = ${tenantId}`.execute(db);
      assert.ok(
        plan.rows.some((r) => /VIRTUAL TABLE INDEX/.test(r.detail)),
        JSON.stringify(plan.rows),
      );
    } else {
      const index = await sql<{
        n: number;
      }>`select count(*)::int as n from pg_indexes where indexname = 'documents_filename_trgm_idx'`.execute(db);
      const extension = await sql<{
        n: number;
      }>`select count(*)::int as n from pg_extension where extname = 'pg_trgm'`.execute(db);
      assert.equal(index.rows[0]!.n, extension.rows[0]!.n, 'the index exists wherever pg_trgm does');
    }
    assert.equal(trigramServes('ab'), false);
    assert.equal(trigramServes('abc'), true);
    assert.equal(trigramServes('📄ab'), true);
    assert.equal(trigramPhrase('say "hi"'), '"say ""hi"""');
  });
});
