import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { buildConsoleIfStale } from '../../../scripts/build-console.ts';
import { ADMIN_KEY, describeEachDialect } from '../../support/app.ts';
import { createTenant, type LoggedInUser, loginAs, type TestTenant } from '../../support/fixtures.ts';
import {
  assertAccessible,
  launchChromium,
  listen,
  NO_CHROMIUM,
  openConsolePage,
  screenshotFolder,
  screenshotter,
  withConsoleSession,
} from './browser.ts';

// The account pages of the rebuilt console (webhooks, members, subscription, storage, imports,
// audit) and the document's versions, audit trail and holds (docs/console.md), driven in Chromium.
const SHOTS = screenshotFolder('console-account-shots-');
const HOOK = 'https://hooks.example.com/docuvault';
const ADMIN_PAGES = ['Webhooks', 'Members', 'Subscription', 'Storage', 'Imports', 'Audit', 'API keys'];

describeEachDialect(
  'rebuilt web console: account pages and document records in Chromium',
  (ctx, dialect) => {
    let browser: Browser;
    let context: BrowserContext;
    let page: Page;
    let base: string;
    let tenant: TestTenant;
    let owner: LoggedInUser;
    let docId: string;
    const shot = screenshotter(SHOTS, dialect, () => page);
    const api = async (method: string, url: string, payload?: object) => {
      const res = await ctx().app.inject({
        method: method as 'GET',
        url: `/api/v1${url}`,
        headers: tenant.headers,
        ...(payload ? { payload } : {}),
      });
      return res.json();
    };
    const checkPage = (target: Page = page) => assertAccessible(target);
    const go = async (hash: string, heading: string, target: Page = page) => {
      await target.goto(`${base}/console/${hash}`);
      await target.getByRole('heading', { name: heading, level: 1 }).waitFor();
    };

    before(async () => {
      if (NO_CHROMIUM) return;
      await buildConsoleIfStale();
      tenant = await createTenant(ctx(), { tier: 'team' });
      owner = await loginAs(ctx(), tenant, 'owner');
      base = await listen(ctx());
      const form = new FormData();
      form.append(
        'file',
        new Blob(['Contract, first draft: the price is 100 euros.'], { type: 'text/plain' }),
        'contract.txt',
      );
      form.append('enable_ai', 'false');
      const res = await fetch(`${base}/api/v1/documents/upload`, {
        method: 'POST',
        body: form,
        headers: { 'x-api-key': tenant.apiKey },
      });
      assert.equal(res.status, 201, await res.clone().text());
      docId = ((await res.json()) as { id: string }).id;
      browser = await launchChromium();
      ({ context, page } = await openConsolePage(browser, { width: 1280, height: 800 }));
      await withConsoleSession(page, owner, tenant.subdomain);
    });
    after(async () => {
      await browser?.close();
    });

    it('creates a webhook (secret shown once), sends a test seen in its delivery log, redelivers, pauses, deletes', {
      skip: NO_CHROMIUM,
    }, async () => {
      await go('#/webhooks', 'Webhooks');
      for (const name of ADMIN_PAGES)
        assert.ok(await page.getByRole('link', { name, exact: true }).isVisible(), `an owner sees ${name}`);
      await page.getByLabel('Endpoint URL (HTTPS)').fill(HOOK);
      await page.getByLabel('Events', { exact: true }).fill('document.uploaded, document.version_created');
      await page.getByRole('button', { name: 'Create webhook' }).click();
      const once = page.getByRole('status').filter({ hasText: 'shown this once only' });
      await once.waitFor();
      assert.match(await once.locator('.key-once').innerText(), /\S{16,}/);
      await page.getByRole('button', { name: `Send test event to ${HOOK}` }).click();
      const log = page.getByRole('region', { name: 'Delivery log', exact: true });
      await log.getByRole('cell', { name: 'webhook.test' }).first().waitFor();
      assert.match(await log.innerText(), /test, attempt 1/);
      await page
        .getByRole('button', { name: /^Redeliver webhook\.test/ })
        .first()
        .click();
      await log
        .getByText(/redeliver, attempt/)
        .first()
        .waitFor();
      await checkPage();
      await shot('webhooks');
      await page.getByRole('button', { name: 'Pause' }).click();
      await page.getByRole('button', { name: 'Activate' }).waitFor();
      assert.equal((await api('GET', '/webhooks')).webhooks[0].status, 'paused');
      await page.getByRole('button', { name: 'Set or rotate secret' }).click();
      await page.getByRole('button', { name: 'Save secret' }).click();
      await page.getByRole('status').filter({ hasText: 'New signing secret' }).waitFor();
      // A refusal is said in words with the request id: an http:// URL.
      await page.getByLabel('Endpoint URL (HTTPS)').fill('http://hooks.example.com/plain');
      await page.getByRole('button', { name: 'Create webhook' }).click();
      assert.match(await page.getByRole('alert').first().innerText(), /Request id \S+/);
      await page.getByRole('button', { name: `Delete webhook ${HOOK}` }).click();
      await page.getByText('No webhooks yet.').waitFor();
      assert.equal((await api('GET', '/webhooks')).total, 0, 'the webhook is gone');
    });

    it('invites a member and changes their role; a workspace gets a member', { skip: NO_CHROMIUM }, async () => {
      await go('#/members', 'Members');
      const invite = page.getByRole('form', { name: 'Invite' });
      await invite.getByLabel('Name').fill('Mia Invited');
      await invite.getByLabel('E-mail').fill(`mia-${tenant.subdomain}@example.com`);
      await invite.getByRole('button', { name: 'Invite' }).click();
      await page.getByRole('status').filter({ hasText: 'An invitation was sent' }).waitFor();
      const role = page.getByLabel('Role of Mia Invited');
      assert.equal(await role.inputValue(), 'member');
      await role.selectOption('admin');
      const findMia = async () =>
        ((await api('GET', '/users?page_size=100')).data as { name: string; role: string }[]).find(
          (u) => u.name === 'Mia Invited',
        );
      for (let i = 0; i < 50 && (await findMia())?.role !== 'admin'; i++) await new Promise((r) => setTimeout(r, 100));
      assert.equal((await findMia())?.role, 'admin', 'the role changed');
      assert.match(await page.locator('li.member', { hasText: 'Mia Invited' }).innerText(), /Invitation/);
      await page.getByLabel('Workspace name').fill('Legal');
      await page.getByRole('button', { name: 'Create workspace' }).click();
      await page.getByRole('link', { name: 'Members of Legal' }).click();
      await page.getByLabel('Person').selectOption({ label: 'Mia Invited' });
      await page.getByRole('button', { name: 'Add to workspace' }).click();
      await page.getByRole('list', { name: 'Members of Legal' }).getByText('Mia Invited').waitFor();
      await checkPage();
      await shot('members');
    });

    it('uploads a new version, restores the old one, shows the audit trail and a legal hold', {
      skip: NO_CHROMIUM,
    }, async () => {
      await go(`#/document/${docId}`, 'contract.txt');
      const versions = page.getByRole('region', { name: 'Versions' });
      await versions.getByText('Version 1').waitFor();
      await versions.getByLabel('Upload a new version').setInputFiles({
        name: 'contract.txt',
        mimeType: 'text/plain',
        buffer: Buffer.from('Contract, signed: the price is 120 euros.'),
      });
      await versions
        .getByRole('status')
        .filter({ hasText: 'Version 2 is now the current one.' })
        .waitFor()
        .catch(async (e) => {
          throw new Error(`${e}: ${await versions.innerText()}`);
        });
      await versions.getByRole('button', { name: 'Restore version 1' }).click();
      // A restore reprocesses the file; on a loaded machine (three files at once, both dialects) it
      // has taken longer than the page's 20 s default: a slow answer is not a failed one.
      await versions
        .getByRole('status')
        .filter({ hasText: 'Version 1 is now the current one.' })
        .waitFor({ timeout: 60_000 })
        .catch(async (e) => {
          throw new Error(`${e}: ${await versions.innerText()}`);
        });
      const list = await api('GET', `/documents/${docId}/versions`);
      const current = list.versions.find((v: { current: boolean }) => v.current);
      assert.equal(current.sha256, list.versions[0].sha256, 'the first version is current again');
      const download = page.waitForEvent('download');
      await versions.getByRole('button', { name: 'Download version 1' }).click();
      assert.equal((await download).suggestedFilename(), 'contract.txt');
      const audit = page.getByRole('region', { name: 'Audit trail' });
      await audit
        .getByRole('cell', { name: /version/ })
        .first()
        .waitFor();
      const holds = page.getByRole('region', { name: 'Legal holds' });
      await holds.getByText('No legal hold covers this document.').waitFor();
      await holds.getByLabel('Hold name').fill('Dispute 2026');
      await holds.getByRole('button', { name: 'Place on hold' }).click();
      await holds.getByText('Dispute 2026').waitFor();
      await checkPage();
      await page.locator('#versions-title').scrollIntoViewIfNeeded();
      await shot('document-records');
      // Deleting a held document is refused in words with the request id.
      await page.getByRole('button', { name: 'Delete', exact: true }).first().click();
      assert.match(await page.getByRole('alert').first().innerText(), /hold[\s\S]*Request id/i);
      await holds.getByRole('button', { name: 'Release hold Dispute 2026' }).click();
      await holds.getByText('No legal hold covers this document.').waitFor();
    });

    it('lists the audit trail with filters in the address and exports CSV and NDJSON', {
      skip: NO_CHROMIUM,
    }, async () => {
      await go(`#/audit?document_id=${docId}`, 'Audit trail');
      const table = page.getByRole('region', { name: 'Audit trail' });
      await table
        .getByRole('cell', { name: /version/ })
        .first()
        .waitFor();
      assert.match(await page.getByRole('status').filter({ hasText: 'records' }).innerText(), /\d+ records/);
      await page.getByLabel('Action').fill('nothing.such');
      await page.getByRole('button', { name: 'Apply' }).click();
      await page.getByText('No records.').waitFor();
      assert.match(page.url(), /action=nothing\.such/);
      await page.getByLabel('Action').fill('');
      await page.getByRole('button', { name: 'Apply' }).click();
      await table.waitFor();
      const csv = page.waitForEvent('download');
      await page.getByRole('button', { name: 'Export CSV' }).click();
      assert.equal((await csv).suggestedFilename(), 'audit.csv');
      const ndjson = page.waitForEvent('download');
      await page.getByRole('button', { name: 'Export NDJSON' }).click();
      assert.equal((await ndjson).suggestedFilename(), 'audit.ndjson');
      await checkPage();
      await shot('audit');
    });

    it('shows the subscription with usage bars, storage with the administrator key, and imports', {
      skip: NO_CHROMIUM,
    }, async () => {
      await go('#/subscription', 'Subscription');
      const usage = page.getByRole('list', { name: 'Usage this period' });
      await usage.waitFor();
      assert.match(await usage.innerText(), /Storage: [\s\S]*Documents: 1, no limit[\s\S]*AI credits: 0 of /);
      assert.equal(await usage.locator('svg').count(), 3, 'one bar each');
      await page.getByRole('button', { name: 'Start checkout' }).click();
      // The manual provider answers a checkout; any refusal would be said in words with its request id.
      await page.locator('[role=status] .badge, [role=alert]').first().waitFor();
      await checkPage();
      await shot('subscription');
      await go('#/storage', 'Storage');
      await page.getByLabel('Administrator key').fill('not the key');
      await page.getByRole('button', { name: 'Show storage' }).click();
      assert.match(await page.getByRole('alert').innerText(), /administrator[\s\S]*Request id/i);
      await page.getByRole('button', { name: 'Forget the key' }).click();
      await page.getByLabel('Administrator key').fill(ADMIN_KEY);
      await page.getByRole('button', { name: 'Show storage' }).click();
      await page.getByRole('heading', { name: 'Targets' }).waitFor();
      await page.getByText('No migration has run.').waitFor();
      await checkPage();
      await shot('storage');
      await go('#/imports', 'Imports');
      await page.getByLabel('Project name').fill('Old drive');
      await page.getByRole('button', { name: 'Create import project' }).click();
      await page.getByRole('progressbar', { name: 'Progress of Old drive' }).waitFor();
      await page.getByRole('button', { name: 'Agents' }).click();
      await page.getByText('No agents on this project.').waitFor();
      await checkPage();
      await shot('imports');
    });

    it('shows a member none of the admin pages, and every new page fits 360 px in the dark', {
      skip: NO_CHROMIUM,
    }, async () => {
      const member = await loginAs(ctx(), tenant, 'member');
      const tab = await browser.newPage();
      try {
        await withConsoleSession(tab, member, tenant.subdomain);
        await go('#/documents', 'All documents', tab);
        for (const name of ADMIN_PAGES)
          assert.equal(await tab.getByRole('link', { name, exact: true }).count(), 0, `a member is not shown ${name}`);
        await tab.goto(`${base}/console/#/webhooks`);
        await tab.getByText('There is no such page.').waitFor();
      } finally {
        await tab.close();
      }
      const phone = await context.newPage();
      await phone.setViewportSize({ width: 360, height: 740 });
      await withConsoleSession(phone, owner, tenant.subdomain);
      try {
        await go('#/webhooks', 'Webhooks', phone);
        await phone.getByRole('button', { name: 'Dark mode' }).click();
        await phone.waitForFunction(() => document.documentElement.dataset['theme'] === 'dark');
        for (const [name, hash, heading] of [
          ['webhooks', '#/webhooks', 'Webhooks'],
          ['members', '#/members', 'Members'],
          ['subscription', '#/subscription', 'Subscription'],
          ['storage', '#/storage', 'Storage'],
          ['imports', '#/imports', 'Imports'],
          ['audit', `#/audit?document_id=${docId}`, 'Audit trail'],
          ['document-records', `#/document/${docId}`, 'contract.txt'],
        ] as const) {
          await go(hash, heading, phone);
          await phone.locator('main .card').first().waitFor();
          await phone.waitForLoadState('networkidle');
          assert.ok(await phone.evaluate(() => document.documentElement.scrollWidth <= 360), `${name} fits in 360 px`);
          await checkPage(phone);
          if (name === 'document-records') await phone.locator('#versions-title').scrollIntoViewIfNeeded();
          await shot(`${name}-360px-dark`, phone);
        }
        await phone.setViewportSize({ width: 1280, height: 800 });
        for (const [name, hash, heading] of [
          ['webhooks', '#/webhooks', 'Webhooks'],
          ['members', '#/members', 'Members'],
          ['subscription', '#/subscription', 'Subscription'],
          ['audit', `#/audit?document_id=${docId}`, 'Audit trail'],
        ] as const) {
          await go(hash, heading, phone);
          await phone.locator('main .card').first().waitFor();
          await phone.waitForLoadState('networkidle');
          await checkPage(phone);
          await shot(`${name}-dark`, phone);
        }
        await phone.getByRole('button', { name: 'Dark mode' }).click();
        await phone.setViewportSize({ width: 360, height: 740 });
        for (const [name, hash, heading] of [
          ['webhooks', '#/webhooks', 'Webhooks'],
          ['members', '#/members', 'Members'],
          ['subscription', '#/subscription', 'Subscription'],
          ['audit', `#/audit?document_id=${docId}`, 'Audit trail'],
        ] as const) {
          await go(hash, heading, phone);
          await phone.locator('main .card').first().waitFor();
          await phone.waitForLoadState('networkidle');
          assert.ok(await phone.evaluate(() => document.documentElement.scrollWidth <= 360), `${name} fits in 360 px`);
          await checkPage(phone);
          await shot(`${name}-360px`, phone);
        }
      } finally {
        await phone.close();
      }
    });
  },
  { worker: true },
);
