import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { buildConsoleIfStale } from '../../../scripts/build-console.ts';
import { describeEachDialect } from '../../support/app.ts';
import { createTenant, type LoggedInUser, lastMailTo, loginAs, type TestTenant } from '../../support/fixtures.ts';
import {
  assertAccessible,
  launchChromium,
  layoutShift,
  listen,
  NO_CHROMIUM,
  openConsolePage,
  screenshotFolder,
  screenshotter,
  withConsoleSession,
} from './browser.ts';

// The profile page and the password link of invitation and reset mails (docs/console.md), driven
// in Chromium. No worker: mail stays in the outbox, and its links are read from there.
const SHOTS = screenshotFolder('console-profile-shots-');
const NEW = 'New password (at least 8 characters)';
const AGAIN = 'New password again';

describeEachDialect('web console: profile and the mails’ password link in Chromium', (ctx, dialect) => {
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let base: string;
  let tenant: TestTenant;
  const shot = screenshotter(SHOTS, dialect, () => page);
  /** The console path of the newest mail to `to` carrying a password link. */
  const passwordPath = async (to: string) => {
    const mail = await lastMailTo(ctx(), tenant, to);
    const link = /http:\/\/127\.0\.0\.1:8080(\/console\/#\/password\?\S+)/.exec(mail?.body ?? '');
    assert.ok(link, mail?.body);
    return link[1] as string;
  };
  const signsIn = async (email: string, password: string) =>
    (
      await ctx().app.inject({
        method: 'POST',
        url: '/api/v1/auth/login',
        headers: { 'x-tenant-subdomain': tenant.subdomain },
        payload: { email, password },
      })
    ).statusCode;

  before(async () => {
    if (NO_CHROMIUM) return;
    await buildConsoleIfStale();
    tenant = await createTenant(ctx(), { name: 'Linkville' });
    base = await listen(ctx());
    browser = await launchChromium();
    ({ context, page } = await openConsolePage(browser, { width: 1280, height: 800 }));
  });
  after(async () => {
    await browser?.close();
  });

  it('an invitation link sets the password and signs the invited person in; the token leaves the address bar', {
    skip: NO_CHROMIUM,
  }, async () => {
    const invited = await ctx().app.inject({
      method: 'POST',
      url: '/api/v1/users',
      headers: tenant.headers,
      payload: { email: 'ivy@example.com', name: 'Ivy' },
    });
    assert.equal(invited.statusCode, 201, invited.body);
    const path = await passwordPath('ivy@example.com');
    // An old bookmark of the rebuilt console's address lands on the same view.
    await page.goto(`${base}${path.replace('/console/', '/console/next/')}`);
    await page.getByRole('heading', { name: 'Choose a password', level: 1 }).waitFor();
    assert.equal(new URL(page.url()).pathname, '/console/');
    assert.match(await page.locator('main').innerText(), /For ivy@example\.com on t\d+/);
    await assertAccessible(page);
    await shot('password');
    await page.getByLabel(NEW).fill('ivy chose this 1');
    await page.getByLabel(AGAIN).fill('ivy chose this 2');
    await page.getByRole('button', { name: 'Set password and sign in' }).click();
    assert.match(await page.getByRole('alert').innerText(), /differ/);
    assert.equal(await signsIn('ivy@example.com', 'ivy chose this 1'), 401, 'nothing was sent');
    await page.getByLabel(AGAIN).fill('ivy chose this 1');
    await page.getByLabel(AGAIN).press('Enter');
    await page.getByRole('link', { name: 'Profile' }).waitFor();
    assert.equal(new URL(page.url()).hash, '#/documents');
    assert.equal(await signsIn('ivy@example.com', 'ivy chose this 1'), 200, 'the password was set');
    await page.getByRole('link', { name: 'Profile' }).click();
    await page.getByRole('heading', { name: 'Profile', level: 1 }).waitFor();
    assert.equal(await page.getByLabel('Name', { exact: true }).inputValue(), 'Ivy', 'signed in as Ivy');
  });

  it('a spent link says why in words, and mails a new link that works', { skip: NO_CHROMIUM }, async () => {
    const spent = await passwordPath('ivy@example.com');
    await page.goto(`${base}${spent}`);
    await page.getByLabel(NEW).fill('another one 22');
    await page.getByLabel(AGAIN).fill('another one 22');
    await page.getByRole('button', { name: 'Set password and sign in' }).click();
    assert.match(await page.getByRole('alert').innerText(), /Request id \S+/);
    await page.getByRole('button', { name: 'Mail me a new link' }).click();
    await page.getByRole('status').filter({ hasText: 'a new link is on its way to ivy@example.com' }).waitFor();
    await assertAccessible(page);
    const reset = await passwordPath('ivy@example.com');
    assert.notEqual(reset, spent, 'a reset mail with a new token');
    await page.goto(`${base}${reset}`);
    await page.getByLabel(NEW).fill('ivy reset this 3');
    await page.getByLabel(AGAIN).fill('ivy reset this 3');
    await page.getByRole('button', { name: 'Set password and sign in' }).click();
    await page.waitForURL(/#\/documents$/);
    await page.getByRole('link', { name: 'Profile' }).waitFor();
    assert.equal(await signsIn('ivy@example.com', 'ivy reset this 3'), 200);
    assert.equal(await signsIn('ivy@example.com', 'ivy chose this 1'), 401, 'the old password is gone');
  });

  it('"Forgot your password?" on the sign-in page mails a reset link', { skip: NO_CHROMIUM }, async () => {
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.getByText('Forgot your password?').click();
    const form = page.getByRole('form', { name: 'Forgot your password?' });
    await form.getByLabel('Workspace of the account (subdomain)').fill(tenant.subdomain);
    await form.getByLabel('E-mail of the account').fill('ivy@example.com');
    await form.getByRole('button', { name: 'Mail me a reset link' }).click();
    await page.getByRole('status').filter({ hasText: 'on its way to ivy@example.com' }).waitFor();
    await assertAccessible(page);
    await shot('signin-forgot');
    const mail = await lastMailTo(ctx(), tenant, 'ivy@example.com');
    assert.equal(mail?.kind, 'password_reset');
  });

  it('the profile renames, turns notification mail off, changes the password and signs other sessions out', {
    skip: NO_CHROMIUM,
  }, async () => {
    const member: LoggedInUser = await loginAs(ctx(), tenant, 'member', { name: 'Max' });
    const elsewhere = await loginAs(ctx(), tenant, 'member');
    const third = await loginAs(ctx(), tenant, 'member');
    const tab = await context.newPage();
    await withConsoleSession(tab, member, tenant.subdomain);
    await tab.goto(`${base}/console/#/profile`);
    await tab.getByRole('heading', { name: 'Profile', level: 1 }).waitFor();
    const sessions = tab.getByRole('list', { name: 'Where you are signed in' });
    await sessions.getByText('This session').waitFor();
    assert.equal(await sessions.getByRole('listitem').count(), 3);
    await assertAccessible(tab);
    await shot('profile', tab);

    await tab.getByLabel('Name', { exact: true }).fill('Max Mustermann');
    await tab.getByLabel(/Notification mail/).uncheck();
    await tab.getByRole('button', { name: 'Save' }).click();
    await tab.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    const me = (
      await ctx().app.inject({ method: 'GET', url: `/api/v1/users/${member.userId}`, headers: tenant.headers })
    ).json();
    assert.equal(me.name, 'Max Mustermann');
    assert.equal(me.notification_mail, false);

    // One other session signed out by hand.
    await sessions
      .getByRole('button', { name: /^Sign out .*, last used/ })
      .first()
      .click();
    await tab.getByRole('status').filter({ hasText: 'Signed out 1 sessions.' }).waitFor();
    await sessions.getByRole('listitem').nth(2).waitFor({ state: 'detached' });
    assert.equal(await sessions.getByRole('listitem').count(), 2);
    const alive = async (u: LoggedInUser) =>
      (await ctx().app.inject({ method: 'GET', url: '/api/v1/auth/me', headers: u.headers })).statusCode;
    assert.deepEqual(
      (await Promise.all([elsewhere, third].map(alive))).sort(),
      [200, 401],
      'one of the two is signed out',
    );

    // A wrong current password is refused in words with the request id; nothing changes.
    const form = tab.getByRole('form', { name: 'Change password' });
    await form.getByLabel('Current password').fill('not my password');
    await form.getByLabel(NEW).fill('max new secret 1');
    await form.getByLabel(AGAIN).fill('max new secret 1');
    await form.getByRole('button', { name: 'Change password' }).click();
    assert.match(await form.getByRole('alert').innerText(), /Request id \S+/);
    assert.equal(await signsIn(member.email, member.password), 200, 'the password is unchanged');

    await form.getByLabel('Current password').fill(member.password);
    await form.getByRole('button', { name: 'Change password' }).click();
    await form.getByRole('status').filter({ hasText: 'Password changed' }).waitFor();
    assert.equal(await signsIn(member.email, 'max new secret 1'), 200, 'the new password works');
    assert.deepEqual(await Promise.all([elsewhere, third].map(alive)), [401, 401], 'the other sessions are gone');
    assert.equal(await alive(member), 200, 'this tab stays signed in');
    await tab.getByText('No other session.').waitFor();
    await tab.close();
  });

  it('fits 360 px in light and dark, axe-core clean; an API key has no profile link', {
    skip: NO_CHROMIUM,
  }, async () => {
    const member = await loginAs(ctx(), tenant, 'admin', { name: 'Ada' });
    const invite = await ctx().app.inject({
      method: 'POST',
      url: '/api/v1/users',
      headers: tenant.headers,
      payload: { email: 'zoe@example.com', name: 'Zoe' },
    });
    assert.equal(invite.statusCode, 201);
    const link = await passwordPath('zoe@example.com');
    const tab = await context.newPage();
    await withConsoleSession(tab, member, tenant.subdomain);
    try {
      for (const [width, height, suffix] of [
        [360, 740, '-360px'],
        [1280, 800, ''],
      ] as const) {
        await tab.setViewportSize({ width, height });
        for (const dark of [false, true]) {
          await tab.goto(`${base}/console/#/profile`);
          await tab.getByRole('heading', { name: 'Profile', level: 1 }).waitFor();
          const isDark = await tab.evaluate(() => document.documentElement.dataset['theme'] === 'dark');
          if (isDark !== dark) await tab.getByRole('button', { name: 'Dark mode' }).click();
          await tab.getByText('This session').waitFor();
          for (const [name, path, heading] of [
            ['profile', '#/profile', 'Profile'],
            ['password', link.slice('/console/'.length), 'Choose a password'],
          ] as const) {
            await tab.goto(`${base}/console/${path}`);
            await tab.getByRole('heading', { name: heading, level: 1 }).waitFor();
            await tab.waitForLoadState('networkidle');
            assert.ok(await tab.evaluate((w) => document.documentElement.scrollWidth <= w, width), `${name} fits`);
            // Web Vitals' "good" cumulative layout shift: the cards arriving do not push what is shown.
            const shift = await layoutShift(tab);
            assert.ok(shift < 0.1, `${name} layout shift ${shift}`);
            await assertAccessible(tab);
            if (suffix || dark) await shot(`${name}${suffix}${dark ? '-dark' : ''}`, tab);
          }
        }
      }
    } finally {
      await tab.close();
    }
    const keyTab = await context.newPage();
    await keyTab.addInitScript(
      (key) => sessionStorage.setItem('docuvault.console.session', JSON.stringify({ apiKey: key })),
      tenant.apiKey,
    );
    await keyTab.goto(`${base}/console/#/profile`);
    await keyTab.getByText('Signed in with an API key: there is no profile.').waitFor();
    assert.equal(await keyTab.getByRole('link', { name: 'Profile' }).count(), 0);
    await keyTab.close();
  });
});
