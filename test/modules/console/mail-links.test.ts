import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { describeEachDialect } from '../../support/app.ts';
import { createTenant, lastMailTo, type TestTenant } from '../../support/fixtures.ts';
import { launchChromium, listen, NO_CHROMIUM, unnamedControls } from './browser.ts';

// Issue 30 in a real browser: the link of an invitation mail opens the console's password view,
// which sets the password and signs the user in; People shows invitations' mail state; Profile
// turns notification mail off. No worker: the mail stays in the outbox, read from there.

describeEachDialect('console: mail links, people and profile in Chromium', (ctx) => {
  let browser: Browser;
  let page: Page;
  let base: string;
  let tenant: TestTenant;

  before(async () => {
    if (NO_CHROMIUM) return;
    tenant = await createTenant(ctx(), { name: 'Linkville' });
    base = await listen(ctx());
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1024, height: 700 } });
    page.setDefaultTimeout(15_000);
  });
  after(async () => {
    await browser?.close();
  });

  it('the invitation link lets the user choose a password and signs them in; the token leaves the address bar', {
    skip: NO_CHROMIUM,
  }, async () => {
    const invited = await ctx().app.inject({
      method: 'POST',
      url: '/api/v1/users',
      headers: tenant.headers,
      payload: { email: 'ivy@example.com', name: 'Ivy' },
    });
    assert.equal(invited.statusCode, 201, invited.body);
    const mail = await lastMailTo(ctx(), tenant, 'ivy@example.com');
    const link = /http:\/\/127\.0\.0\.1:8080(\/console\/#\/password\?\S+)/.exec(mail?.body ?? '');
    assert.ok(link, mail?.body);
    await page.goto(`${base}${link[1]}`);
    await page.getByRole('heading', { name: 'Choose a password' }).waitFor();
    assert.deepEqual(await unnamedControls(page), []);
    await page.getByLabel('New password (at least 8 characters)').fill('ivy chose this 1');
    await page.getByLabel('New password (at least 8 characters)').press('Enter');
    await page.getByRole('table', { name: 'Documents' }).waitFor();
    assert.equal(new URL(page.url()).hash, '#/documents');
    const login = await ctx().app.inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      headers: { 'x-tenant-subdomain': tenant.subdomain },
      payload: { email: 'ivy@example.com', password: 'ivy chose this 1' },
    });
    assert.equal(login.statusCode, 200, 'the password was set');
  });

  it('a spent link says why instead of signing in', { skip: NO_CHROMIUM }, async () => {
    const mail = await lastMailTo(ctx(), tenant, 'ivy@example.com');
    const link = /http:\/\/127\.0\.0\.1:8080(\/console\/#\/password\?\S+)/.exec(mail?.body ?? '')!;
    await page.goto(`${base}${link[1]}`);
    await page.getByLabel('New password (at least 8 characters)').fill('another one 22');
    await page.getByLabel('New password (at least 8 characters)').press('Enter');
    await page.getByRole('alert').waitFor();
  });

  it('People shows who is still invited and what their mail did; Profile turns notification mail off', {
    skip: NO_CHROMIUM,
  }, async () => {
    await ctx().app.inject({
      method: 'POST',
      url: '/api/v1/users',
      headers: tenant.headers,
      payload: { email: 'jo@example.com', name: 'Jo' },
    });
    await page.goto(`${base}/console/#/people`);
    const people = page.getByRole('table', { name: 'People' });
    await people.waitFor();
    assert.match(
      await people.getByRole('row').filter({ hasText: 'jo@example.com' }).innerText(),
      /invited · mail waiting to be sent/,
    );
    assert.match(await people.getByRole('row').filter({ hasText: 'ivy@example.com' }).innerText(), /active/);

    await page.getByRole('link', { name: 'Profile' }).click();
    const box = page.getByLabel(/Notification mail/);
    assert.equal(await box.isChecked(), true);
    await box.uncheck();
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    assert.deepEqual(await unnamedControls(page), []);
    const users = (
      await ctx().app.inject({ method: 'GET', url: '/api/v1/users?page_size=100', headers: tenant.headers })
    ).json();
    assert.equal(users.data.find((u: { email: string }) => u.email === 'ivy@example.com').notification_mail, false);
  });
});
