import assert from 'node:assert/strict';
import { accessSync, constants, mkdtempSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { TestApp } from '../../support/app.ts';

/** Where Debian's `chromium` package (and its older name) puts the browser; playwright-core downloads none. */
const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser'];

/** The Chromium to drive, or null where none is installed (the browser tests are then skipped). */
export function findChromium(): string | null {
  for (const path of CANDIDATES) {
    try {
      accessSync(path, constants.X_OK);
      return path;
    } catch {
      // not there: try the next one
    }
  }
  return null;
}

export const CHROMIUM = findChromium();
export const NO_CHROMIUM = CHROMIUM
  ? false
  : 'Chromium is not installed (Debian: apt-get install chromium); the real-browser tests need it';

export async function launchChromium(): Promise<Browser> {
  const { chromium } = await import('playwright-core');
  return chromium.launch({ executablePath: CHROMIUM as string, headless: true, args: ['--no-sandbox'] });
}

/** The test app on a real port on 127.0.0.1, for a browser to reach. */
export async function listen(ctx: TestApp): Promise<string> {
  await ctx.app.listen({ port: 0, host: '127.0.0.1' });
  return `http://127.0.0.1:${(ctx.app.server.address() as AddressInfo).port}`;
}

/** Controls on the page without an accessible name (label, aria-label(ledby), text or title). */
export function unnamedControls(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const named = (el: HTMLElement) =>
      Boolean(
        el.getAttribute('aria-label') ||
          el.getAttribute('aria-labelledby') ||
          el.getAttribute('title') ||
          ((el as HTMLInputElement).labels?.length ?? 0) > 0 ||
          (el.tagName !== 'INPUT' && el.textContent?.trim()) ||
          el.getAttribute('alt') ||
          // alt="" marks an image as decoration (a thumbnail inside a named link, say): nothing to name.
          (el.tagName === 'IMG' && el.getAttribute('alt') === ''),
      );
    const controls = [
      ...document.querySelectorAll<HTMLElement>('a[href], button, input, select, textarea, img, iframe'),
    ];
    return controls
      .filter((el) => el.getClientRects().length > 0 && !named(el))
      .map((el) => el.outerHTML.slice(0, 120));
  });
}

/** The page's cumulative layout shift so far (Chromium's layout-shift entries, those not caused by input). */
export function layoutShift(page: Page): Promise<number> {
  return page.evaluate(
    () =>
      new Promise<number>((resolve) => {
        let total = 0;
        new PerformanceObserver((list) => {
          for (const entry of list.getEntries() as (PerformanceEntry & { value: number; hadRecentInput: boolean })[])
            if (!entry.hadRecentInput) total += entry.value;
        }).observe({ type: 'layout-shift', buffered: true });
        setTimeout(() => resolve(total), 100);
      }),
  );
}

/** axe-core's serious and critical violations on the page as it is now (WCAG 2 A/AA rules), one line each. */
export async function axeViolations(page: Page): Promise<string[]> {
  if (!(await page.evaluate(() => 'axe' in window))) {
    const { createRequire } = await import('node:module');
    await page.addScriptTag({ path: createRequire(import.meta.url).resolve('axe-core/axe.min.js') });
  }
  return page.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: {
          run(
            ctx: Document,
            o: object,
          ): Promise<{ violations: { id: string; impact: string; help: string; nodes: { target: string[] }[] }[] }>;
        };
      }
    ).axe;
    const { violations } = await axe.run(document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] },
    });
    return violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map(
        (v) =>
          `${v.id} (${v.impact}): ${v.help} at ${v.nodes
            .map((n) => n.target.join(' '))
            .slice(0, 3)
            .join(', ')}`,
      );
  });
}

/** The console's session (sessionStorage), set before the page's scripts run. */
export async function withConsoleSession(
  page: Page,
  user: { accessToken: string; refreshToken: string; csrfToken: string },
  tenant: string,
): Promise<void> {
  const session = {
    tokens: {
      accessToken: user.accessToken,
      refreshToken: user.refreshToken,
      csrfToken: user.csrfToken,
      expiresAt: Date.now() + 10 * 60_000,
      tenant,
    },
  };
  await page.addInitScript(
    (value) => sessionStorage.setItem('docuvault.console.session', value),
    JSON.stringify(session),
  );
}

/** Where a browser test's screenshots go: docs/screenshots with UPDATE_SCREENSHOTS=1, a fresh temporary folder otherwise. */
export function screenshotFolder(prefix: string): string {
  return process.env['UPDATE_SCREENSHOTS'] === '1'
    ? new URL('../../../docs/screenshots/', import.meta.url).pathname
    : mkdtempSync(join(tmpdir(), prefix));
}

/**
 * `shot(name, page?)`: a screenshot `next-<name>.png` into `folder` (the page is read when it is
 * taken, so a suite's `let page` may be set later). SQLite's run only: the pictures are the same.
 */
export function screenshotter(folder: string, dialect: string, current: () => Page) {
  return async (name: string, target: Page = current()): Promise<void> => {
    if (dialect === 'sqlite') await target.screenshot({ path: join(folder, `next-${name}.png`), fullPage: false });
  };
}

/** axe-core finds no serious or critical violation on the page, and every control has an accessible name. */
export async function assertAccessible(page: Page): Promise<void> {
  assert.deepEqual(await axeViolations(page), [], 'no serious or critical axe-core violation');
  assert.deepEqual(await unnamedControls(page), [], 'every control has an accessible name');
}

/** A light-scheme page in a new context, patient (20 s) and accepting confirm dialogs, as the console tests drive it. */
export async function openConsolePage(
  browser: Browser,
  viewport: { width: number; height: number },
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport, colorScheme: 'light' });
  const page = await context.newPage();
  page.setDefaultTimeout(20_000);
  page.on('dialog', (dialog) => void dialog.accept());
  return { context, page };
}
