import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { buildConsoleIfStale } from '../../../scripts/build-console.ts';
import { DocumentsRepository } from '../../../src/modules/documents/documents.repository.ts';
import { describeEachDialect } from '../../support/app.ts';
import { documentRow } from '../../support/document-rows.ts';
import { createTenant, type LoggedInUser, loginAs, type TestTenant } from '../../support/fixtures.ts';
import {
  assertAccessible,
  launchChromium,
  listen,
  NO_CHROMIUM,
  openConsolePage,
  withConsoleSession,
} from './browser.ts';

// The rebuilt console's documents view: filters by tags, entity and AI state in the address and in
// saved views; bulk move and bulk share with each document's outcome; a document's processing
// progress (docs/console.md, docs/api-decisions.md §18).

describeEachDialect('console documents: filters, bulk move and share, progress', (ctx) => {
  let browser: Browser;
  let page: Page;
  let base: string;
  let tenant: TestTenant;
  let owner: LoggedInUser;
  let member: LoggedInUser;
  const id = (name: string) => `${tenant.tenantId}-${name}`;
  const api = (url: string, headers: Record<string, string> = tenant.headers) =>
    ctx().app.inject({ url: `/api/v1${url}`, headers });
  /** The names the list shows, once it shows `count` of them. */
  const shown = async (count: number) => {
    await page.waitForFunction((n) => document.querySelectorAll('.rows .doc-name').length === n, count);
    return (await page.locator('.rows .doc-name').allInnerTexts()).sort();
  };

  before(async () => {
    if (NO_CHROMIUM) return;
    await buildConsoleIfStale();
    tenant = await createTenant(ctx(), { tier: 'team' });
    owner = await loginAs(ctx(), tenant, 'owner');
    member = await loginAs(ctx(), tenant, 'member', { name: 'Mia Member' });
    const db = ctx().container.database.db;
    const now = Date.now();
    const entities = (e: object) => JSON.stringify({ people: [], organizations: [], dates: [], ...e });
    await db
      .insertInto('documents')
      .values([
        documentRow(tenant.tenantId, id('a1'), {
          filename: 'acme-invoice.txt',
          ai_status: 'completed',
          entities: entities({ organizations: ['Acme Corp'] }),
          created_at: now,
        }),
        documentRow(tenant.tenantId, id('a2'), {
          filename: 'globex-memo.txt',
          ai_status: 'failed',
          entities: entities({ people: ['Hank Scorpio'] }),
          created_at: now - 1000,
        }),
        documentRow(tenant.tenantId, id('a3'), {
          filename: 'scan.pdf',
          extension: 'pdf',
          file_type: 'application/pdf',
          status: 'processing',
          ai_status: 'queued',
          created_at: now - 2000,
        }),
      ])
      .execute();
    for (const tag of ['red', 'blue'])
      await db
        .insertInto('tags')
        .values({
          id: id(tag),
          tenant_id: tenant.tenantId,
          name: tag,
          name_key: tag,
          color: '#000000',
          created_at: now,
        })
        .execute();
    await db
      .insertInto('document_tags')
      .values(
        [
          ['a1', 'red'],
          ['a1', 'blue'],
          ['a2', 'red'],
        ].map(([d, tag]) => ({ tenant_id: tenant.tenantId, document_id: id(d!), tag_id: id(tag!), created_at: now })),
      )
      .execute();
    await new DocumentsRepository().saveProgress(db, {
      tenantId: tenant.tenantId,
      documentId: id('a3'),
      stage: 'extraction',
      pages: { done: 3, total: 12 },
      at: now,
    });
    base = await listen(ctx());
    browser = await launchChromium();
    ({ page } = await openConsolePage(browser, { width: 1280, height: 900 }));
    await withConsoleSession(page, owner, tenant.subdomain);
  });
  after(async () => {
    await browser?.close();
  });

  it('filters by tags (all or any), entity and AI state, kept in the address and in a saved view', {
    skip: NO_CHROMIUM,
  }, async () => {
    await page.goto(`${base}/console/#/documents`);
    assert.deepEqual(await shown(3), ['acme-invoice.txt', 'globex-memo.txt', 'scan.pdf']);
    await page.getByText('Tags', { exact: true }).click();
    const choices = page.getByRole('list', { name: 'Tags' });
    await choices.getByLabel('red').check();
    await page.waitForFunction(() => location.hash.includes('tags='));
    assert.deepEqual(await shown(2), ['acme-invoice.txt', 'globex-memo.txt']);
    await choices.getByLabel('blue').check();
    assert.deepEqual(await shown(1), ['acme-invoice.txt']);
    await page.getByLabel('any of these tags').check();
    await page.waitForFunction(() => location.hash.includes('match=any'));
    assert.deepEqual(await shown(2), ['acme-invoice.txt', 'globex-memo.txt']);
    // The open tag menu's checkboxes and radios are named too.
    await assertAccessible(page);

    await page.getByRole('searchbox', { name: 'Entity' }).fill('ACME');
    await page.getByRole('searchbox', { name: 'Entity' }).press('Enter');
    await page.waitForFunction(() => location.hash.includes('entity=ACME'));
    assert.deepEqual(await shown(1), ['acme-invoice.txt']);
    await page.getByLabel('Entity kind').selectOption('person');
    await page.getByText('No documents').first().waitFor();
    await page.getByLabel('Entity kind').selectOption('');
    await page.getByRole('searchbox', { name: 'Entity' }).fill('');
    await page.getByRole('searchbox', { name: 'Entity' }).press('Enter');
    await page.getByLabel('AI state').selectOption('failed');
    await page.waitForFunction(() => location.hash.includes('ai=failed') && !location.hash.includes('entity='));
    assert.deepEqual(await shown(1), ['globex-memo.txt']);

    // The address holds the filters: a reload shows the same list and the same controls.
    await page.reload();
    assert.deepEqual(await shown(1), ['globex-memo.txt']);
    assert.equal(await page.getByLabel('AI state').inputValue(), 'failed');
    assert.match(await page.locator('.tag-filter summary').innerText(), /Tags \(2\)/);

    const views = page.getByRole('region', { name: 'Saved views' });
    await views.getByLabel('Name of the view').fill('Red, AI failed');
    await views.getByRole('button', { name: 'Save this view' }).click();
    await views.getByRole('status').filter({ hasText: 'Saved' }).waitFor();
    const saved = (await api('/saved-views', owner.headers)).json().data[0].filters;
    assert.deepEqual(saved, { tags: `${id('red')},${id('blue')}`, match: 'any', ai: 'failed' });
    await page.getByRole('button', { name: 'Clear filters' }).click();
    assert.deepEqual(await shown(3), ['acme-invoice.txt', 'globex-memo.txt', 'scan.pdf']);
    await views.getByRole('link', { name: 'Red, AI failed' }).click();
    assert.deepEqual(await shown(1), ['globex-memo.txt']);
    await assertAccessible(page);
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await shown(3);
  });

  it('moves the selection to a folder, each document told its outcome (one deleted meanwhile fails)', {
    skip: NO_CHROMIUM,
  }, async () => {
    const folder = await ctx().app.inject({
      method: 'POST',
      url: '/api/v1/folders',
      headers: tenant.headers,
      payload: { name: 'Archive' },
    });
    assert.equal(folder.statusCode, 201, folder.body);
    const archive = folder.json().id as string;
    await page.reload();
    await shown(3);
    await page.getByLabel('Select acme-invoice.txt').check();
    await page.getByLabel('Select globex-memo.txt').check();
    const bulk = page.getByRole('group', { name: '2 selected' });
    // Gone before the move is asked: its own outcome says so, the other is moved.
    const gone = await ctx().app.inject({
      method: 'DELETE',
      url: `/api/v1/documents/${id('a2')}`,
      headers: tenant.headers,
    });
    assert.equal(gone.statusCode, 200, gone.body);
    await bulk.getByLabel('Move to folder').selectOption({ label: 'Archive' });
    await bulk.getByRole('button', { name: 'Move' }).click();
    const outcomes = page.getByRole('list', { name: 'Outcome per document' });
    await outcomes.waitFor();
    const lines = await outcomes.getByRole('listitem').allInnerTexts();
    assert.ok(
      lines.some((l) => /^acme-invoice\.txt: done/.test(l)),
      lines.join('\n'),
    );
    assert.ok(
      lines.some((l) => /^globex-memo\.txt: failed: .+Request id \S+/.test(l)),
      lines.join('\n'),
    );
    await page.getByRole('status').filter({ hasText: '1 done, 1 failed.' }).waitFor();
    assert.equal((await api(`/documents/${id('a1')}`)).json().folder_id, archive);
    await assertAccessible(page);
  });

  it('shares the selection with a person through the share endpoint', { skip: NO_CHROMIUM }, async () => {
    await page.goto(`${base}/console/#/documents`);
    await shown(1);
    assert.equal((await api('/documents', member.headers)).json().total, 0);
    await page.getByLabel('Select all shown').check();
    const bulk = page.getByRole('group', { name: '1 selected' });
    await bulk.getByLabel('Share with').selectOption({ label: `Mia Member <${member.email}>` });
    await bulk.getByLabel('Permission').selectOption('view');
    await bulk.getByRole('button', { name: 'Share' }).click();
    await page.getByRole('list', { name: 'Outcome per document' }).getByText('scan.pdf: done').waitFor();
    const seen = (await api('/documents', member.headers)).json();
    assert.deepEqual(
      seen.data.map((d: { filename: string }) => d.filename),
      ['scan.pdf'],
    );
  });

  it("shows a scan's pages read of total while it is processed, following it live", { skip: NO_CHROMIUM }, async () => {
    await page.goto(`${base}/console/#/document/${id('a3')}`);
    const state = page.getByRole('status').filter({ hasText: 'Pages read' });
    await state.getByText('Reading the text · Pages read: 3 of 12').waitFor();
    assert.equal(await state.getByRole('progressbar', { name: 'Processing progress' }).getAttribute('value'), '3');
    await assertAccessible(page);
    await new DocumentsRepository().saveProgress(ctx().container.database.db, {
      tenantId: tenant.tenantId,
      documentId: id('a3'),
      stage: 'extraction',
      pages: { done: 12, total: 12 },
      at: Date.now(),
    });
    await state.getByText('Pages read: 12 of 12').waitFor();
  });
});
