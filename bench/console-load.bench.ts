import fs from 'node:fs';
import { gzipSync } from 'node:zlib';
import type { Browser } from 'playwright-core';
import { CHROMIUM, launchChromium } from '../test/modules/console/browser.ts';
import { startService } from './console/service.ts';
import { median, stop } from './support.ts';

/**
 * Console first load, the classic console (/console/) and the rebuilt one (/console/next/) on the
 * same service, loads interleaved so a loaded machine slows both alike: time from navigation start
 * to the first view drawn (each console's `console:interactive` mark, set when the document list
 * has its data), signed in, each load in a fresh browser context (empty cache), median of
 * `CONSOLE_LOAD_ROUNDS` (10); and the JavaScript that first page fetched (raw, and gzip -9 of each
 * response summed). The first load of each is a warm-up (the service compresses each file once).
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
    const consoles = {
      classic: {
        url: `${service.url}/console/#/documents`,
        key: 'docuvault.session',
        session: { tenant: service.subdomain, access: t.access_token, refresh: t.refresh_token, csrf: t.csrf_token },
      },
      rebuilt: {
        url: `${service.url}/console/next/#/documents`,
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
      },
    };
    type Name = keyof typeof consoles;
    const loads: Record<Name, number[]> = { classic: [], rebuilt: [] };
    const scripts: Record<Name, { raw: number; gzip: number; files: number }> = {
      classic: { raw: 0, gzip: 0, files: 0 },
      rebuilt: { raw: 0, gzip: 0, files: 0 },
    };
    for (let i = 0; i <= rounds; i++) {
      for (const name of ['rebuilt', 'classic'] as const) {
        const { ms, js } = await load(browser, consoles[name]);
        if (i === 0) scripts[name] = js;
        else loads[name].push(ms);
      }
    }
    const summary = (name: Name) => ({
      interactive_median_ms: Math.round(median(loads[name])),
      interactive_max_ms: Math.round(Math.max(...loads[name])),
      js_files: scripts[name].files,
      js_bytes: scripts[name].raw,
      js_gzip_bytes: scripts[name].gzip,
    });
    return {
      loads: rounds,
      rebuilt: summary('rebuilt'),
      classic: summary('classic'),
      rebuilt_to_classic: Number((median(loads.rebuilt) / median(loads.classic)).toFixed(2)),
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
