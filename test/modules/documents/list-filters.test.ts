import assert from 'node:assert/strict';
import { it } from 'node:test';
import { sql } from 'kysely';
import { DocumentsRepository } from '../../../src/modules/documents/documents.repository.ts';
import { describeEachDialect } from '../../support/app.ts';
import { documentRow } from '../../support/document-rows.ts';
import { assertError, createTenant, loginAs, type TestTenant } from '../../support/fixtures.ts';

// GET /documents filtered by several tags, by entity and by processing / AI state (docs/api-decisions.md §18),
// combined with the spec's filters and paging, for the tenant's administrators and for a member who sees only
// what is shared with them; the other tenant holds the same tags and entities.

const entities = (e: Record<string, string[]>) => JSON.stringify({ people: [], organizations: [], dates: [], ...e });

/** d1..d6 of a tenant, tags `red`, `blue`, `green`, a folder; the same in every tenant made. */
async function library(t: ReturnType<Parameters<Parameters<typeof describeEachDialect>[1]>[0]>, tenant: TestTenant) {
  const db = t.container.database.db;
  const id = (name: string) => `${tenant.tenantId}-${name}`;
  const now = Date.now();
  await db
    .insertInto('folders')
    .values({
      id: id('f'),
      tenant_id: tenant.tenantId,
      parent_id: null,
      name: 'Contracts',
      name_key: 'contracts',
      color: '#000000',
      icon: 'folder',
      created_by: null,
      created_at: now,
      updated_at: now,
    })
    .execute();
  const rows: { n: string; status: string; ai: string; e: Record<string, string[]>; folder?: boolean }[] = [
    { n: 'd1', status: 'completed', ai: 'completed', e: { organizations: ['Acme Corp'], people: ['Jane Doe'] } },
    { n: 'd2', status: 'completed', ai: 'failed', e: { organizations: ['ACME Holdings'], dates: ['2025-03-04'] } },
    { n: 'd3', status: 'processing', ai: 'queued', e: {} },
    { n: 'd4', status: 'failed', ai: 'failed', e: { places: ['Acme Springs'], amounts: ['USD 12,500.00'] } },
    { n: 'd5', status: 'completed', ai: 'skipped', e: { people: ['Acme Smith'] }, folder: true },
    { n: 'd6', status: 'completed', ai: 'completed', e: { dates: ['2025-04-01'] }, folder: true },
  ];
  await db
    .insertInto('documents')
    .values(
      rows.map((r, i) =>
        documentRow(tenant.tenantId, id(r.n), {
          status: r.status,
          ai_status: r.ai,
          entities: entities(r.e),
          folder_id: r.folder ? id('f') : null,
          created_at: now - i * 1000,
        }),
      ),
    )
    .execute();
  for (const tag of ['red', 'blue', 'green'])
    await db
      .insertInto('tags')
      .values({ id: id(tag), tenant_id: tenant.tenantId, name: tag, name_key: tag, color: '#000000', created_at: now })
      .execute();
  const tagged: [string, string][] = [
    ['d1', 'red'],
    ['d1', 'blue'],
    ['d2', 'red'],
    ['d3', 'blue'],
    ['d5', 'red'],
    ['d5', 'blue'],
    ['d6', 'green'],
  ];
  await db
    .insertInto('document_tags')
    .values(
      tagged.map(([d, tag]) => ({ tenant_id: tenant.tenantId, document_id: id(d), tag_id: id(tag), created_at: now })),
    )
    .execute();
  return id;
}

describeEachDialect('document list filters: tags, entity, states', (ctx) => {
  let tenant: TestTenant;
  let id: (name: string) => string;

  /** The names (d1...) the list answers for this query, and its total. */
  async function names(query: string, headers: Record<string, string> = tenant.headers) {
    const res = await ctx().app.inject({ method: 'GET', url: `/api/v1/documents?${query}`, headers });
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    return {
      names: (body.data as { id: string }[]).map((d) => d.id.slice(tenant.tenantId.length + 1)).sort(),
      total: body.total as number,
    };
  }

  it('sets up two tenants with the same library', async () => {
    tenant = await createTenant(ctx());
    id = await library(ctx(), tenant);
    await library(ctx(), await createTenant(ctx()));
  });

  it('filters by several tags: all of them by default, any with tag_match=any; tag_id counts with them', async () => {
    assert.deepEqual(await names(`tag_ids=${id('red')},${id('blue')}`), { names: ['d1', 'd5'], total: 2 });
    assert.deepEqual(await names(`tag_ids=${id('red')},${id('blue')}&tag_match=any`), {
      names: ['d1', 'd2', 'd3', 'd5'],
      total: 4,
    });
    assert.deepEqual(await names(`tag_id=${id('green')}&tag_ids=${id('red')}&tag_match=any`), {
      names: ['d1', 'd2', 'd5', 'd6'],
      total: 4,
    });
    assert.deepEqual(await names(`tag_id=${id('red')}&tag_ids=${id('blue')}`), { names: ['d1', 'd5'], total: 2 });
    // The spec's single tag filter answers as before.
    assert.deepEqual(await names(`tag_id=${id('green')}`), { names: ['d6'], total: 1 });
    assert.deepEqual(await names('tag_ids=no-such-tag'), { names: [], total: 0 });
  });

  it('filters by entity: a case-insensitive prefix of any kind, or of one kind', async () => {
    assert.deepEqual((await names('entity=acme')).names, ['d1', 'd2', 'd4', 'd5']);
    assert.deepEqual((await names('entity=ACME%20c')).names, ['d1']);
    assert.deepEqual((await names('entity=acme&entity_type=organization')).names, ['d1', 'd2']);
    assert.deepEqual((await names('entity=acme&entity_type=person')).names, ['d5']);
    assert.deepEqual((await names('entity=acme&entity_type=location')).names, ['d4']);
    assert.deepEqual((await names('entity=2025-03&entity_type=date')).names, ['d2']);
    assert.deepEqual((await names('entity=2025')).names, ['d2', 'd6']);
    // An amount by its plain form and by its number alone.
    assert.deepEqual((await names('entity=usd%2012')).names, ['d4']);
    assert.deepEqual((await names('entity=12,500&entity_type=amount')).names, ['d4']);
    assert.deepEqual((await names('entity=%20jane%20')).names, ['d1']);
    assert.deepEqual((await names('entity=nobody')).names, []);
  });

  it('follows a change of the entities (enrichment, review)', async () => {
    const db = ctx().container.database.db;
    await db
      .updateTable('documents')
      .set({ entities: entities({ organizations: ['Globex'] }) })
      .where('id', '=', id('d1'))
      .execute();
    assert.deepEqual((await names('entity=acme')).names, ['d2', 'd4', 'd5']);
    assert.deepEqual((await names('entity=globex')).names, ['d1']);
    await db
      .updateTable('documents')
      .set({ entities: entities({ organizations: ['Acme Corp'], people: ['Jane Doe'] }) })
      .where('id', '=', id('d1'))
      .execute();
    assert.deepEqual((await names('entity=globex')).names, []);
  });

  it('filters by status and ai_status, any of a comma-separated list', async () => {
    assert.deepEqual(await names('status=processing'), { names: ['d3'], total: 1 });
    assert.deepEqual((await names('status=processing,failed')).names, ['d3', 'd4']);
    assert.deepEqual((await names('ai_status=failed')).names, ['d2', 'd4']);
    assert.deepEqual((await names('status=completed&ai_status=failed,skipped')).names, ['d2', 'd5']);
  });

  it('combines with folder, search, sort and paging; total counts every match', async () => {
    assert.deepEqual((await names(`folder_id=${id('f')}&tag_ids=${id('red')}`)).names, ['d5']);
    assert.deepEqual(await names(`entity=acme&status=completed&tag_ids=${id('red')}`), {
      names: ['d1', 'd2', 'd5'],
      total: 3,
    });
    const page = await names('entity=acme&limit=2&page=2&sort=created_at&order=asc');
    assert.equal(page.total, 4);
    assert.deepEqual(page.names, ['d1', 'd2']);
    assert.deepEqual((await names('folder_id=root&ai_status=failed&entity=acme&entity_type=organization')).names, [
      'd2',
    ]);
  });

  it('refuses unknown states, blank entities, entity_type alone and too many tags with 400', async () => {
    const get = (query: string) =>
      ctx().app.inject({ method: 'GET', url: `/api/v1/documents?${query}`, headers: tenant.headers });
    assertError(await get('status=done'), 400, 'validation_error');
    assertError(await get('ai_status=queued,nope'), 400, 'validation_error');
    assertError(await get('status=,'), 400, 'validation_error');
    assertError(await get('entity=%20%20'), 400, 'validation_error');
    assertError(await get('entity_type=person'), 400, 'validation_error');
    assertError(await get('entity=x&entity_type=planet'), 400, 'validation_error');
    assertError(await get('tag_match=some'), 400, 'validation_error');
    const many = Array.from({ length: 21 }, (_, i) => `t${i}`).join(',');
    assertError(await get(`tag_ids=${many}`), 400, 'validation_error');
  });

  it('a member sees only their documents and those shared with them, under every filter', async () => {
    const member = await loginAs(ctx(), tenant, 'member');
    for (const d of ['d1', 'd4']) {
      const res = await ctx().app.inject({
        method: 'POST',
        url: `/api/v1/documents/${id(d)}/share`,
        headers: tenant.headers,
        payload: { user_id: member.userId, permission: 'view' },
      });
      assert.equal(res.statusCode, 201, res.body);
    }
    const as = (query: string) => names(query, member.headers);
    assert.deepEqual(await as('entity=acme'), { names: ['d1', 'd4'], total: 2 });
    assert.deepEqual(await as(`tag_ids=${id('red')},${id('blue')}`), { names: ['d1'], total: 1 });
    assert.deepEqual(await as('status=failed'), { names: ['d4'], total: 1 });
    assert.deepEqual(await as('ai_status=failed&entity=acme&entity_type=location'), { names: ['d4'], total: 1 });
    assert.deepEqual(await as('status=processing'), { names: [], total: 0 });
    // A state most documents are in is probed per visible document; a rare one read from its index: the same answers.
    assert.deepEqual(await as('status=completed'), { names: ['d1'], total: 1 });
    assert.deepEqual(await as('status=completed,failed&ai_status=completed,failed'), { names: ['d1', 'd4'], total: 2 });
    assert.deepEqual(await as('ai_status=skipped,failed'), { names: ['d4'], total: 1 });
  });

  it('finds entities and states through their indexes', async (t) => {
    const db = ctx().container.database.db;
    if (ctx().dialect !== 'sqlite') return t.skip('plan checked on SQLite (PostgreSQL plans by its statistics)');
    const plan = async (query: ReturnType<typeof sql>) =>
      (await query.execute(db)).rows.map((r) => (r as { detail: string }).detail).join('\n');
    const entity = await plan(
      sql`explain query plan select document_id from document_entities where tenant_id = ${tenant.tenantId} and value_key >= 'acme' and value_key < ${'acme\u{10ffff}'}`,
    );
    assert.match(entity, /document_entities_value_idx/);
    const state = await plan(
      sql`explain query plan select id from documents where tenant_id = ${tenant.tenantId} and status = 'processing' order by created_at desc, id desc`,
    );
    assert.match(state, /documents_status_created_idx/);
    assert.doesNotMatch(state, /TEMP B-TREE/);
  });

  it('shows processing_progress while a document is processed: queued, then its stage and pages; null after', async () => {
    const db = ctx().container.database.db;
    const detail = async (name: string) => {
      const res = await ctx().app.inject({
        method: 'GET',
        url: `/api/v1/documents/${id(name)}`,
        headers: tenant.headers,
      });
      assert.equal(res.statusCode, 200, res.body);
      return res.json().processing_progress;
    };
    assert.deepEqual(await detail('d3'), { stage: 'queued', pages_done: null, pages_total: null });
    assert.equal(await detail('d1'), null);
    const repository = new DocumentsRepository();
    await repository.saveProgress(db, {
      tenantId: tenant.tenantId,
      documentId: id('d3'),
      stage: 'extraction',
      pages: { done: 3, total: 12 },
      at: Date.now(),
    });
    assert.deepEqual(await detail('d3'), { stage: 'extraction', pages_done: 3, pages_total: 12 });
    // A later stage keeps the pages read.
    await repository.saveProgress(db, {
      tenantId: tenant.tenantId,
      documentId: id('d3'),
      stage: 'enrichment',
      at: Date.now(),
    });
    assert.deepEqual(await detail('d3'), { stage: 'enrichment', pages_done: 3, pages_total: 12 });
    const listed = await ctx().app.inject({
      method: 'GET',
      url: '/api/v1/documents?status=processing,failed',
      headers: tenant.headers,
    });
    const byId = new Map((listed.json().data as { id: string; processing_progress: unknown }[]).map((d) => [d.id, d]));
    assert.deepEqual(byId.get(id('d3'))?.processing_progress, { stage: 'enrichment', pages_done: 3, pages_total: 12 });
    assert.equal(byId.get(id('d4'))?.processing_progress, null);
    // Processing ended (completed or failed): the pipeline clears it in that transaction.
    await repository.clearProgress(db, tenant.tenantId, id('d3'));
    assert.deepEqual(await detail('d3'), { stage: 'queued', pages_done: null, pages_total: null });
  });
});
