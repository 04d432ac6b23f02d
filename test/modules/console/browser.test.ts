import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { writeTree } from '../../cli/helpers.ts';
import { describeEachDialect } from '../../support/app.ts';
import { createTenant, type LoggedInUser, loginAs, type TestTenant } from '../../support/fixtures.ts';
import { workflowApi } from '../workflows/helpers.ts';
import { launchChromium, layoutShift, listen, NO_CHROMIUM, unnamedControls, withSession } from './browser.ts';

const POLICY =
  'Travel and Expense Policy. Hotel stays are reimbursed up to 180 euros per night in Paris and 150 euros elsewhere.';
// Screenshots for the README are refreshed on request (UPDATE_SCREENSHOTS=1); an ordinary run still
// takes them (so a broken screen fails here) but into a scratch folder, leaving the tree clean.
const SHOTS =
  process.env['UPDATE_SCREENSHOTS'] === '1'
    ? new URL('../../../docs/screenshots/', import.meta.url).pathname
    : mkdtempSync(join(tmpdir(), 'console-shots-'));

/** An approval between two steps, assigned to the finance role (the owner may decide too). */
const approvalFlow = {
  name: 'Invoice approval',
  nodes: [
    { id: 'start', type: 'transform', config: { expression: '$trigger' } },
    {
      id: 'approve',
      type: 'human_approval',
      depends_on: ['start'],
      timeout_hours: 24,
      config: { assignee_type: 'role', assignee_value: 'finance_manager', title: 'Approve {{trigger.invoice}}' },
    },
    { id: 'pay', type: 'transform', depends_on: ['approve'], config: { expression: '"paid"' } },
    {
      id: 'on_reject',
      type: 'transform',
      depends_on: ['approve'],
      run_if: 'nodes.approve.output.decision == "rejected"',
      config: { expression: '"rejected"' },
    },
  ],
};

describeEachDialect(
  'web console in Chromium',
  (ctx, dialect) => {
    let browser: Browser;
    let page: Page;
    let base: string;
    let tenant: TestTenant;
    let owner: LoggedInUser;
    let policyId: string;
    // Screenshots of the main screens for the README, from one dialect's run.
    const shot = (name: string) =>
      dialect === 'sqlite' ? page.screenshot({ path: join(SHOTS, `${name}.png`) }) : Promise.resolve();
    const api = (url: string) => ctx().app.inject({ url: `/api/v1${url}`, headers: tenant.headers });
    const expectNamed = async () =>
      assert.deepEqual(await unnamedControls(page), [], 'every control has an accessible name');

    before(async () => {
      if (NO_CHROMIUM) return;
      tenant = await createTenant(ctx(), { tier: 'team' });
      owner = await loginAs(ctx(), tenant, 'owner');
      base = await listen(ctx());
      browser = await launchChromium();
      page = await browser.newPage({ viewport: { width: 1024, height: 700 } });
      page.setDefaultTimeout(15_000);
    });
    after(async () => {
      await browser?.close();
    });

    it('signs in as a user with the keyboard, and refuses a wrong password', { skip: NO_CHROMIUM }, async () => {
      await page.goto(`${base}/console/`);
      await page.getByLabel('Workspace (subdomain)').fill(tenant.subdomain);
      await page.getByLabel('E-mail').fill(owner.email);
      await page.getByLabel('Password', { exact: true }).fill('not the password');
      await page.keyboard.press('Enter');
      await page.getByRole('alert').waitFor();
      await expectNamed();
      await shot('sign-in');
      await page.getByLabel('Password', { exact: true }).fill(owner.password);
      await page.getByLabel('Password', { exact: true }).press('Enter');
      await page.getByRole('table', { name: 'Documents' }).waitFor();
      assert.equal(await page.getByRole('link', { name: 'Documents' }).getAttribute('aria-current'), 'page');
      assert.ok(await page.evaluate(() => document.activeElement?.id === 'main'), 'focus moves to the new view');
    });

    it('uploads files with a progress bar each, and lists the rejected ones with their reason and a retry', {
      skip: NO_CHROMIUM,
    }, async () => {
      await page.getByRole('link', { name: 'Upload' }).click();
      await page.getByLabel('Files', { exact: true }).setInputFiles([
        { name: 'policy.txt', mimeType: 'text/plain', buffer: Buffer.from(POLICY) },
        { name: 'tool.exe', mimeType: 'application/octet-stream', buffer: Buffer.from('MZ not a document') },
      ]);
      await page.getByRole('status').filter({ hasText: '1 stored, 1 not stored.' }).waitFor();
      assert.equal(await page.getByRole('progressbar', { name: 'Upload of policy.txt' }).getAttribute('value'), '1');
      const rejected = page.getByRole('region', { name: 'Rejected files' });
      assert.match(await rejected.innerText(), /tool\.exe – INVALID_FILE_TYPE: Files of this type are not accepted/);
      await rejected.getByRole('button', { name: 'Retry tool.exe' }).waitFor();
      await expectNamed();
      await shot('upload');
      const list = (await api('/documents?search=policy')).json();
      assert.deepEqual(
        list.data.map((d: { filename: string }) => d.filename),
        ['policy.txt'],
      );
      policyId = list.data[0].id;
    });

    it('uploads a picked folder mirrored as folders', { skip: NO_CHROMIUM }, async () => {
      const root = join(await mkdtemp(join(tmpdir(), 'console-dir-')), 'reports');
      await writeTree(root, {
        'q1.txt': 'Quarter one revenue grew.',
        '2025/q2.txt': 'Quarter two was flat.',
        '.hidden': 'x',
      });
      await page.getByLabel('A folder').setInputFiles(root);
      await page.getByRole('status').filter({ hasText: '2 stored, 0 not stored.' }).waitFor();
      const { folders } = (await api('/folders')).json() as {
        folders: { id: string; name: string; parent_id: string | null }[];
      };
      const reports = folders.find((f) => f.name === 'reports' && f.parent_id === null);
      const year = folders.find((f) => f.name === '2025' && f.parent_id === reports?.id);
      assert.ok(reports && year, JSON.stringify(folders));
      assert.deepEqual(
        (await api(`/documents?folder_id=${year.id}`)).json().data.map((d: { filename: string }) => d.filename),
        ['q2.txt'],
      );
    });

    it('mirrors a dropped folder (webkitGetAsEntry) as folders', { skip: NO_CHROMIUM }, async () => {
      await page.evaluate(() => {
        // Chromium gives file-system entries only to a real drag; this drop carries entries of the same shape.
        const file = (name: string, text: string) => ({
          isFile: true,
          isDirectory: false,
          name,
          file: (ok: (f: File) => void) => ok(new File([text], name, { type: 'text/plain' })),
        });
        const dir = (name: string, children: object[]) => ({
          isFile: false,
          isDirectory: true,
          name,
          createReader: () => {
            // Answers the children once, then nothing: how readEntries says it is done.
            const pieces = [children, []];
            return { readEntries: (ok: (e: object[]) => void) => ok(pieces.shift() ?? []) };
          },
        });
        const entry = dir('dropped', [
          file('a.txt', 'Dropped file A.'),
          dir('inner', [file('b.txt', 'Dropped file B.')]),
        ]);
        const drop = new DragEvent('drop', { bubbles: true, cancelable: true });
        Object.defineProperty(drop, 'dataTransfer', { value: { items: [{ webkitGetAsEntry: () => entry }] } });
        document.querySelector('.drop')?.dispatchEvent(drop);
      });
      await page.getByRole('status').filter({ hasText: '2 stored, 0 not stored.' }).waitFor();
      const { folders } = (await api('/folders')).json() as {
        folders: { id: string; name: string; parent_id: string | null }[];
      };
      const dropped = folders.find((f) => f.name === 'dropped');
      const inner = folders.find((f) => f.name === 'inner' && f.parent_id === dropped?.id);
      assert.ok(inner, JSON.stringify(folders));
      assert.deepEqual(
        (await api(`/documents?folder_id=${inner.id}`)).json().data.map((d: { filename: string }) => d.filename),
        ['b.txt'],
      );
    });

    it('browses the folder tree with counts and breadcrumbs', { skip: NO_CHROMIUM }, async () => {
      await page.getByRole('link', { name: 'Documents' }).click();
      await page.getByRole('link', { name: 'reports (1)' }).click();
      await page.getByRole('link', { name: '2025 (1)' }).click();
      await page.getByRole('cell', { name: 'q2.txt' }).waitFor();
      const crumbs = page.getByRole('navigation', { name: 'Breadcrumb' });
      assert.equal((await crumbs.innerText()).replace(/\s+/g, ' '), 'Home / reports / 2025');
      await expectNamed();
      await shot('documents');
    });

    it('shows a document whose processing state follows the work, and answers a question with citations', {
      skip: NO_CHROMIUM,
    }, async () => {
      await page.goto(`${base}/console/#/document/${policyId}`);
      await page
        .getByRole('status')
        .filter({ hasText: 'Processing: completed · AI: completed' })
        .waitFor({ timeout: 30_000 });
      await page.getByRole('img', { name: 'Preview of policy.txt' }).waitFor();
      await page.getByLabel('Ask about this document').fill('How much is a hotel night in Paris?');
      await page.getByRole('button', { name: 'Ask' }).click();
      const sources = page.getByRole('list', { name: 'Sources' });
      await sources.waitFor();
      assert.ok((await page.locator('.answer').innerText()).length > 0, 'the answer was streamed in');
      assert.match(
        String(await sources.getByRole('link').first().getAttribute('href')),
        new RegExp(`#/document/${policyId}$`),
      );
      await expectNamed();
      await shot('document');
    });

    it('shares the document with a colleague and removes the share', { skip: NO_CHROMIUM }, async () => {
      const colleague = await loginAs(ctx(), tenant, 'member', { name: 'Casey Member' });
      await page.reload();
      const shares = page.getByRole('region', { name: 'Shares' });
      await shares.getByText('Not shared.').waitFor();
      await shares.getByLabel('Share with').selectOption({ label: `Casey Member <${colleague.email}>` });
      await shares.getByLabel('as').selectOption('edit');
      await shares.getByRole('button', { name: 'Share', exact: true }).click();
      await shares.getByText('Casey Member: edit').waitFor();
      const listed = (await api(`/documents/${policyId}/shares`)).json().shares;
      assert.deepEqual(
        listed.map((s: { user_id: string; permission: string }) => [s.user_id, s.permission]),
        [[colleague.userId, 'edit']],
      );
      await shares.getByRole('button', { name: 'Remove share with Casey Member' }).click();
      await shares.getByText('Not shared.').waitFor();
      assert.equal((await api(`/documents/${policyId}/shares`)).json().shares.length, 0);
    });

    it('searches with highlights', { skip: NO_CHROMIUM }, async () => {
      await page.getByLabel('Search documents').fill('hotel');
      await page.getByLabel('Search mode').selectOption('text');
      await page.getByLabel('Search documents').press('Enter');
      await page.getByRole('heading', { name: /results \(text\)/ }).waitFor();
      assert.match(await page.locator('.results mark').first().innerText(), /hotel/i);
      await page.getByRole('link', { name: 'policy.txt' }).waitFor();
      await expectNamed();
      await shot('search');
    });

    it('approves a human task with a comment, and shows the execution as a graph of node states', {
      skip: NO_CHROMIUM,
    }, async () => {
      const flows = workflowApi(ctx, () => tenant.headers);
      const workflowId = await flows.create(approvalFlow, true);
      const executionId = await flows.run(workflowId, { invoice: 'INV-42' });
      await flows.until(executionId, ['paused']);
      await page.getByRole('link', { name: 'Tasks' }).click();
      await page.getByLabel('Comment on “Approve INV-42”').fill('Checked against the order');
      await expectNamed();
      await shot('tasks');
      await page.getByRole('button', { name: 'Approve Approve INV-42' }).click();
      await page.getByText('Nothing waiting.').waitFor();
      const finished = await flows.finished(executionId);
      assert.equal(finished.status, 'completed');
      assert.deepEqual(
        [finished.node_results.approve.output.decision, finished.node_results.approve.output.comments],
        ['approved', 'Checked against the order'],
      );

      await page.goto(`${base}/console/#/execution/${executionId}`);
      const graph = page.getByRole('group', { name: 'Node states' });
      await graph.waitFor();
      assert.equal(await graph.locator('g.node').count(), 4);
      assert.deepEqual(await graph.locator('li').allInnerTexts(), [
        'start (transform): completed',
        'approve (human_approval): completed',
        'pay (transform): completed',
        'on_reject (transform): skipped',
      ]);
      await page.getByRole('heading', { name: 'Invoice approval: completed' }).waitFor();
      await shot('execution');
    });

    it('is readable at 360 px wide: no sideways scrolling, no layout shift as data arrives', {
      skip: NO_CHROMIUM,
    }, async () => {
      const phone = await browser.newPage({ viewport: { width: 360, height: 740 } });
      try {
        await withSession(phone, {
          tenant: tenant.subdomain,
          access: owner.accessToken,
          refresh: owner.refreshToken,
          csrf: owner.csrfToken,
        });
        for (const view of ['#/documents', `#/document/${policyId}`, '#/tasks', '#/upload']) {
          await phone.goto(`${base}/console/${view}`);
          await phone.locator('main h2, main table').first().waitFor();
          assert.ok(await phone.evaluate(() => document.documentElement.scrollWidth <= 360), `${view} fits in 360 px`);
          assert.equal(await layoutShift(phone), 0, `${view}: no layout shift`);
        }
        await phone.goto(`${base}/console/#/document/${policyId}`);
        await phone.getByRole('heading', { name: 'policy.txt' }).waitFor();
        if (dialect === 'sqlite') await phone.screenshot({ path: join(SHOTS, 'document-360px.png') });
      } finally {
        await phone.close();
      }
    });
  },
  { worker: true },
);
