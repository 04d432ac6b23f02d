import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { buildConsoleIfStale } from '../../../scripts/build-console.ts';
import { describeEachDialect } from '../../support/app.ts';
import { createTenant, loginAs } from '../../support/fixtures.ts';
import { post, uploadProcessed } from '../search/helpers.ts';
import {
  assertAccessible,
  launchChromium,
  listen,
  NO_CHROMIUM,
  openConsolePage,
  withConsoleSession,
} from './browser.ts';

// "Ask about this folder" on the documents page (docs/chat-and-agents.md), driven in Chromium: the
// answer comes from the folder's documents, and its source opens the cited document.
const LEASE =
  'Office lease between Harrow Estates Ltd and Quillfeather Studio. The office lease begins on 1 April 2025 and ends on 31 March 2028.';
const OTHER = 'Office lease for the Lisbon branch of Quillfeather Studio. This office lease ends on 30 June 2031.';

describeEachDialect(
  'web console: ask about a folder in Chromium',
  (ctx) => {
    let browser: Browser;
    let page: Page;
    let base: string;

    before(async () => {
      if (NO_CHROMIUM) return;
      await buildConsoleIfStale();
      base = await listen(ctx());
      browser = await launchChromium();
      ({ page } = await openConsolePage(browser, { width: 1280, height: 800 }));
    });
    after(async () => {
      await browser?.close();
    });

    it('asks across the folder and opens the cited document', { skip: NO_CHROMIUM }, async () => {
      const tenant = await createTenant(ctx(), { tier: 'team' });
      const owner = await loginAs(ctx(), tenant, 'owner');
      const folder = (await post(ctx(), tenant.headers, '/folders', { name: 'Leases' })).json().id as string;
      const lease = await uploadProcessed(ctx(), tenant.headers, 'lease.txt', LEASE, { folder_id: folder });
      await uploadProcessed(ctx(), tenant.headers, 'lisbon.txt', OTHER);
      await withConsoleSession(page, owner, tenant.subdomain);
      await page.goto(`${base}/console/#/documents/${folder}`);
      await page.getByRole('heading', { name: 'Leases', level: 1 }).waitFor();
      await page.getByText('Ask about this folder').click();
      await page.getByLabel('Your question').fill('When does the office lease end?');
      await page.getByRole('button', { name: 'Ask', exact: true }).click();
      const source = page.getByRole('link', { name: /^Source 1/ });
      await source.waitFor();
      assert.match(await page.locator('.folder-chat .chat-a').innerText(), /31 March 2028/);
      await assertAccessible(page);
      assert.match((await source.getAttribute('href')) ?? '', new RegExp(`#/document/${lease}`));
      await source.click();
      await page.getByRole('heading', { name: 'lease.txt', level: 1 }).waitFor();

      // At the top level the same entry asks across everything the caller may read.
      await page.goto(`${base}/console/#/documents`);
      await page.getByText('Ask about all documents').waitFor();
    });
  },
  { worker: true },
);
