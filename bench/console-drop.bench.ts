import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { CHROMIUM, launchChromium } from '../test/modules/console/browser.ts';
import { cli } from './cli-upload.bench.ts';
import { startService } from './console/service.ts';
import { median, stop } from './support.ts';

const FILES = 200;
/** Two levels, as a scanned archive would be: `<folder>/batch-<n>/note-<i>.txt`, 50 files a sub-folder. */
const PER_DIR = 50;
const BIN = new URL('../packages/cli/bin/docuvault.ts', import.meta.url).pathname;

interface Entry {
  dir: string;
  name: string;
  text: string;
}

/** The folder's files: ~4 KB of text each, the same bytes on disk (CLI) and in the page (drop). */
function tree(): Entry[] {
  return Array.from({ length: FILES }, (_, i) => ({
    dir: `batch-${Math.floor(i / PER_DIR)}`,
    name: `note-${String(i).padStart(3, '0')}.txt`,
    text: `Note ${i}: ${'meeting minutes and small text '.repeat(130)}`,
  }));
}

/**
 * Drag-and-drop of a 200-file folder onto the rebuilt console (issue 33 figure: "reaches the
 * throughput of the CLI within 0.8"), against `docuvault upload` of the same folder, same service,
 * same run. Rounds alternate which goes first (`CONSOLE_DROP_ROUNDS`, 3), medians compared.
 *
 * - Console: a signed-in page of `#/documents` in headless Chromium; the drop is dispatched with
 *   entries of the File System API's shape (a real OS drag cannot be automated, as in the tests);
 *   timed in the page from the drop to the upload list saying all 200 stored (read every 50 ms).
 *   Files are made in the page before the clock starts; folder creation is inside the time.
 * - CLI: `docuvault upload <dir> --to /cli-<n>` with its defaults (4 at a time, AI on like the
 *   console's uploads), a fresh process: wall time, and wall time less a bare `docuvault --help`
 *   (Node's start and the CLI's module loading), the "upload only" time the target is read against.
 */
export async function run() {
  if (!CHROMIUM) return { skipped: 'Chromium is not installed' };
  const rounds = Number(process.env['CONSOLE_DROP_ROUNDS'] ?? 3);
  const service = await startService();
  const browser = await launchChromium();
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'dms-bench-drop-'));
  try {
    const files = tree();
    const dir = path.join(work, 'archive');
    for (const f of files) {
      fs.mkdirSync(path.join(dir, f.dir), { recursive: true });
      fs.writeFileSync(path.join(dir, f.dir, f.name), f.text);
    }
    const env = {
      DOCUVAULT_CONFIG: path.join(work, 'config.json'),
      DOCUVAULT_URL: service.url,
      DOCUVAULT_API_KEY: service.apiKey,
    };
    const session = await signedIn(service);
    const probeMs: number[] = [];
    const consoleMs: number[] = [];
    const cliMs: number[] = [];
    const startMs: number[] = [];
    for (let i = 0; i < rounds; i++) {
      const consoleFirst = i % 2 === 0;
      for (const which of consoleFirst ? ['console', 'cli'] : ['cli', 'console']) {
        if (which === 'console') consoleMs.push(await drop(browser, service.url, session, files, `drop-${i}`));
        else {
          const args = ['upload', dir, '--to', `/cli-${i}`, '--no-progress', '--json'];
          const done = await cli(args, env);
          if (done.summary.uploaded !== FILES) throw new Error(`cli uploaded ${done.summary.uploaded}`);
          cliMs.push(done.ms);
        }
      }
      probeMs.push(await pageLoop(browser, service.url, session, files, `probe-${i}`));
      startMs.push(await bareStart(env));
    }
    const c = median(consoleMs);
    const wall = median(cliMs);
    const uploadOnly = wall - median(startMs);
    return {
      files: FILES,
      rounds,
      console_ms: consoleMs.map(Math.round),
      cli_wall_ms: cliMs.map(Math.round),
      cli_start_ms: Math.round(median(startMs)),
      page_loop_ms: probeMs.map(Math.round),
      console_files_per_s: Math.round(FILES / (c / 1000)),
      cli_files_per_s_upload_only: Math.round(FILES / (uploadOnly / 1000)),
      ratio_to_cli_upload_only: Number((uploadOnly / c).toFixed(2)),
      ratio_to_cli_wall: Number((wall / c).toFixed(2)),
      load_average: os.loadavg().map((l) => Number(l.toFixed(1))),
    };
  } finally {
    await browser.close();
    await stop(service.child);
    fs.rmSync(work, { recursive: true, force: true });
    fs.rmSync(service.dataDir, { recursive: true, force: true });
  }
}

/** The rebuilt console's session (sessionStorage) for the tenant's owner. */
async function signedIn(service: Awaited<ReturnType<typeof startService>>) {
  const login = await fetch(`${service.url}/api/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-tenant-subdomain': service.subdomain },
    body: JSON.stringify({ email: service.owner.email, password: service.owner.password }),
  });
  const t = (await login.json()) as { access_token: string; refresh_token: string; csrf_token: string };
  return {
    tokens: {
      accessToken: t.access_token,
      refreshToken: t.refresh_token,
      csrfToken: t.csrf_token,
      expiresAt: Date.now() + 60 * 60_000,
      tenant: service.subdomain,
    },
  };
}

/** One drop of the folder (named `name`) onto the top folder; answers the ms until all are stored. */
async function drop(browser: Browser, url: string, session: unknown, files: Entry[], name: string): Promise<number> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  try {
    const page: Page = await context.newPage();
    await page.addInitScript(
      (value) => sessionStorage.setItem('docuvault.console.session', value),
      JSON.stringify(session),
    );
    await page.goto(`${url}/console/#/documents`);
    await page.locator('section.folder-content').waitFor();
    await page.evaluate(
      ({ files, name }) => {
        const file = (f: { name: string; text: string }) => {
          const made = new File([f.text], f.name, { type: 'text/plain' });
          return { isFile: true, isDirectory: false, name: f.name, file: (ok: (x: File) => void) => ok(made) };
        };
        const dir = (dirName: string, children: object[]) => ({
          isFile: false,
          isDirectory: true,
          name: dirName,
          createReader: () => {
            const pieces = [children, []];
            return { readEntries: (ok: (e: object[]) => void) => ok(pieces.shift() ?? []) };
          },
        });
        const dirs = [...new Set(files.map((f) => f.dir))];
        const root = dir(
          name,
          dirs.map((d) => dir(d, files.filter((f) => f.dir === d).map(file))),
        );
        const event = new DragEvent('drop', { bubbles: true, cancelable: true });
        Object.defineProperty(event, 'dataTransfer', {
          value: { items: [{ webkitGetAsEntry: () => root }], files: [], types: ['Files'] },
        });
        const w = window as unknown as { dropStarted: number };
        w.dropStarted = performance.now();
        document.querySelector('section.folder-content')!.dispatchEvent(event);
      },
      { files, name },
    );
    const done = `${files.length} stored, 0 not stored, 0 in progress.`;
    await page.waitForFunction((text) => document.querySelector('.uploads [role=status]')?.textContent === text, done, {
      polling: 50,
      timeout: 300_000,
    });
    return await page.evaluate(() => performance.now() - (window as unknown as { dropStarted: number }).dropStarted);
  } finally {
    await context.close();
  }
}

/**
 * The probe: the same files sent from a console page by a bare loop (`fetch`, multipart, six at a
 * time, the user's bearer token as the console sends it) with no UI, one file a request: what the
 * console cost before it grouped small files into batches (bench/console-upload-paths.bench.ts
 * takes the request path apart).
 */
async function pageLoop(browser: Browser, url: string, session: unknown, files: Entry[], name: string) {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await page.goto(`${url}/console/#/documents`);
    const { tokens } = session as { tokens: { accessToken: string; tenant: string; csrfToken: string } };
    return await page.evaluate(
      async ({ files, name, tokens }) => {
        const headers = {
          authorization: `Bearer ${tokens.accessToken}`,
          'x-tenant-subdomain': tokens.tenant,
          'x-csrf-token': tokens.csrfToken,
        };
        const made = await fetch('/api/v1/folders', {
          method: 'POST',
          headers: { ...headers, 'content-type': 'application/json' },
          body: JSON.stringify({ name }),
        });
        const folder = ((await made.json()) as { id: string }).id;
        const blobs = files.map((f) => new File([f.text], f.name, { type: 'text/plain' }));
        const started = performance.now();
        let next = 0;
        const lane = async () => {
          while (next < blobs.length) {
            const form = new FormData();
            form.append('folder_id', folder);
            form.append('file', blobs[next++]!);
            const res = await fetch('/api/v1/documents/upload', {
              method: 'POST',
              headers: { ...headers, 'idempotency-key': crypto.randomUUID() },
              body: form,
            });
            if (res.status !== 201) throw new Error(`upload ${res.status}`);
            await res.arrayBuffer();
          }
        };
        await Promise.all(Array.from({ length: 6 }, lane));
        return performance.now() - started;
      },
      { files, name, tokens },
    );
  } finally {
    await context.close();
  }
}

/** A bare start of the CLI (`--help`): what a CLI run pays before its first upload. */
async function bareStart(env: Record<string, string>): Promise<number> {
  const { spawnSync } = await import('node:child_process');
  const started = performance.now();
  spawnSync(process.execPath, [BIN, '--help'], { env: { ...process.env, ...env }, stdio: 'ignore' });
  return performance.now() - started;
}

if (import.meta.main) console.log(JSON.stringify(await run(), null, 2));
