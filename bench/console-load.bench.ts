import fs from 'node:fs';
import { gzipSync } from 'node:zlib';
import { CHROMIUM, launchChromium } from '../test/console/browser.ts';
import { startService } from './console/service.ts';
import { median, stop } from './support.ts';

const PUBLIC = new URL('../src/modules/console/public/', import.meta.url);

/**
 * Console first load: the JavaScript a browser fetches (raw and gzipped, as served after type
 * stripping) and the time from navigation start to the first view drawn (the app's
 * `console:interactive` mark), signed in, in this machine's Chromium, each load in a fresh
 * browser context (empty cache). The first load of the service's life strips the TypeScript.
 */
export async function run() {
  if (!CHROMIUM) return { skipped: 'Chromium is not installed' };
  const service = await startService();
  const browser = await launchChromium();
  try {
    const login = await fetch(`${service.url}/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-tenant-subdomain': service.subdomain },
      body: JSON.stringify({ email: service.owner.email, password: service.owner.password }),
    });
    const t = (await login.json()) as { access_token: string; refresh_token: string; csrf_token: string };
    const session = JSON.stringify({
      tenant: service.subdomain,
      access: t.access_token,
      refresh: t.refresh_token,
      csrf: t.csrf_token,
    });
    const loads: number[] = [];
    for (let i = 0; i < 11; i++) {
      const context = await browser.newContext();
      const page = await context.newPage();
      await page.addInitScript((value) => sessionStorage.setItem('docuvault.session', value), session);
      await page.goto(`${service.url}/console/#/documents`);
      await page.getByRole('table', { name: 'Documents' }).waitFor();
      loads.push(
        await page.evaluate(() => performance.getEntriesByName('console:interactive')[0]?.startTime ?? Number.NaN),
      );
      await context.close();
    }
    let raw = 0;
    let gzipped = 0;
    for (const name of fs.readdirSync(PUBLIC).filter((n) => n.endsWith('.ts'))) {
      const body = await (await fetch(`${service.url}/console/${name}`)).text();
      raw += Buffer.byteLength(body);
      gzipped += gzipSync(body).length;
    }
    return {
      js_bytes: raw,
      js_gzip_bytes: gzipped,
      first_load_ms: Math.round(loads[0] as number),
      interactive_median_ms: Math.round(median(loads.slice(1))),
      interactive_max_ms: Math.round(Math.max(...loads.slice(1))),
      loads: loads.length - 1,
    };
  } finally {
    await browser.close();
    await stop(service.child);
    fs.rmSync(service.dataDir, { recursive: true, force: true });
  }
}
