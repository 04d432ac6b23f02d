import fs from 'node:fs';
import { gzipSync } from 'node:zlib';
import type { Browser } from 'playwright-core';
import { CHROMIUM, launchChromium } from '../test/modules/console/browser.ts';
import { startService } from './console/service.ts';
import { median, stop } from './support.ts';

/**
 * Console first load (/console/): time from navigation start to the first view drawn (the
 * `console:interactive` mark, set when the document list has its data), signed in, each load in a
 * fresh browser context (empty cache), median of `CONSOLE_LOAD_ROUNDS` (10); and the JavaScript
 * that first page fetched (raw, and gzip -9 of each response summed). The first load is a warm-up
 * (the service compresses each file once). Until 2026-11-29 this compared the rebuilt console with
 * the classic one it replaced (docs/benchmarks-console.md).
 */
export async function run() {
  if (!CHROMIUM) return { skipped: 'Chromium is not installed' };
  const rounds = Number(process.env['CONSOLE_LOAD_ROUNDS'] ?? 10);
  const service = await startService();
  const browser = await launchChromium();
  try {
    const login = await fetch(`${service.url}/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-tenant-subdomain': service.subdomain },
      body: JSON.stringify({ email: service.owner.email, password: service.owner.password }),
    });
    const t = (await login.json()) as { access_token: string; refresh_token: string; csrf_token: string };
    const target = {
      url: `${service.url}/console/#/documents`,
      key: 'docuvault.console.session',
      session: {
        tokens: {
          accessToken: t.access_token,
          refreshToken: t.refresh_token,
          csrfToken: t.csrf_token,
          expiresAt: Date.now() + 60 * 60_000,
          tenant: service.subdomain,
        },
      },
    };
    const loads: number[] = [];
    let scripts = { raw: 0, gzip: 0, files: 0 };
    for (let i = 0; i <= rounds; i++) {
      const { ms, js } = await load(browser, target);
      if (i === 0) scripts = js;
      else loads.push(ms);
    }
    return {
      loads: rounds,
      interactive_median_ms: Math.round(median(loads)),
      interactive_max_ms: Math.round(Math.max(...loads)),
      js_files: scripts.files,
      js_bytes: scripts.raw,
      js_gzip_bytes: scripts.gzip,
    };
  } finally {
    await browser.close();
    await stop(service.child);
    fs.rmSync(service.dataDir, { recursive: true, force: true });
  }
}

async function load(
  browser: Browser,
  target: { url: string; key: string; session: unknown },
): Promise<{ ms: number; js: { raw: number; gzip: number; files: number } }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  try {
    const page = await context.newPage();
    const bodies: Promise<Buffer | null>[] = [];
    page.on('response', (response) => {
      if (/javascript/.test(response.headers()['content-type'] ?? '')) bodies.push(response.body().catch(() => null));
    });
    await page.addInitScript(({ key, value }) => sessionStorage.setItem(key, value), {
      key: target.key,
      value: JSON.stringify(target.session),
    });
    await page.goto(target.url);
    await page.waitForFunction(() => performance.getEntriesByName('console:interactive').length > 0, undefined, {
      timeout: 30_000,
    });
    const ms = await page.evaluate(() => performance.getEntriesByName('console:interactive')[0]!.startTime);
    const js = { raw: 0, gzip: 0, files: 0 };
    for (const body of await Promise.all(bodies)) {
      if (!body) continue;
      js.files++;
      js.raw += body.length;
      js.gzip += gzipSync(body, { level: 9 }).length;
    }
    return { ms, js };
  } finally {
    await context.close();
  }
}

if (import.meta.main) console.log(JSON.stringify(await run(), null, 2));
