import fs from 'node:fs';
import os from 'node:os';
import type { Browser } from 'playwright-core';
import { CHROMIUM, launchChromium } from '../test/modules/console/browser.ts';
import { startService } from './console/service.ts';
import { median, stop } from './support.ts';

/**
 * Where a console upload's time goes (issue 33, "drag-and-drop reaches the CLI within 0.8"): the same
 * 200 small files sent by bare loops that differ in one thing each, against one service, in rounds
 * whose order rotates. Each variant reports its wall time and the **service process's CPU time**
 * (utime + stime from /proc), the figure a loaded machine disturbs least.
 *
 * - `client`: Node's fetch (the CLI's HTTP client) or a console page in headless Chromium;
 * - `credential`: the tenant's API key (`X-API-Key`, what the CLI sends) or the owner's user token
 *   (`Authorization: Bearer` + `X-Tenant-Subdomain` + `X-CSRF-Token`, what the console sends);
 * - `per_request`: 1 file (`POST /documents/upload`) or 10 (`POST /documents/upload-batch`);
 * - requests at a time: 6 (a browser's connections to one origin), or 3, or the CLI's 4;
 * - plus `GET /folders` 400 times with each credential: authentication's cost with no upload around it.
 *
 * The job worker is off (`WORKER_IN_PROCESS=false`), so the CPU measured is the request path only.
 * `CONSOLE_PATHS_ROUNDS` (3) rounds; medians.
 */
const FILES = 200;
const LANES = 6;
const GETS = 400;

interface Variant {
  name: string;
  client: 'node' | 'browser';
  credential: 'key' | 'token';
  perRequest: number;
  /** Requests at a time (6, a browser's connections to one origin, unless said). */
  lanes?: number;
  get?: boolean;
}

const VARIANTS: Variant[] = [
  { name: 'node key single', client: 'node', credential: 'key', perRequest: 1 },
  { name: 'node token single', client: 'node', credential: 'token', perRequest: 1 },
  { name: 'node token batch10', client: 'node', credential: 'token', perRequest: 10 },
  { name: 'browser token single', client: 'browser', credential: 'token', perRequest: 1 },
  { name: 'browser key single', client: 'browser', credential: 'key', perRequest: 1 },
  { name: 'browser token batch10', client: 'browser', credential: 'token', perRequest: 10 },
  { name: 'browser token batch10 3 lanes', client: 'browser', credential: 'token', perRequest: 10, lanes: 3 },
  { name: 'node key single 4 lanes (CLI)', client: 'node', credential: 'key', perRequest: 1, lanes: 4 },
  { name: 'node key GET', client: 'node', credential: 'key', perRequest: 0, get: true },
  { name: 'node token GET', client: 'node', credential: 'token', perRequest: 0, get: true },
];

interface SendArgs {
  base: string;
  headers: Record<string, string>;
  folder: string;
  files: { name: string; text: string }[];
  perRequest: number;
  lanes: number;
  gets: number;
}

/**
 * The loop itself, the same code in Node and in the page (Playwright sends its source): `perRequest`
 * files a request, `lanes` requests at a time; with `perRequest` 0, `gets` reads of the folder list.
 */
async function send(a: SendArgs): Promise<number> {
  const started = performance.now();
  let next = 0;
  const lane = async () => {
    if (a.perRequest === 0) {
      while (next < a.gets) {
        next++;
        const res = await fetch(`${a.base}/api/v1/folders`, { headers: a.headers });
        if (res.status !== 200) throw new Error(`get ${res.status}`);
        await res.arrayBuffer();
      }
      return;
    }
    while (next < a.files.length) {
      const group = a.files.slice(next, next + a.perRequest);
      next += group.length;
      const form = new FormData();
      form.append('folder_id', a.folder);
      for (const f of group)
        form.append(a.perRequest === 1 ? 'file' : 'files', new File([f.text], f.name, { type: 'text/plain' }));
      const path = a.perRequest === 1 ? 'upload' : 'upload-batch';
      const res = await fetch(`${a.base}/api/v1/documents/${path}`, {
        method: 'POST',
        headers: { ...a.headers, 'idempotency-key': crypto.randomUUID() },
        body: form,
      });
      if (res.status !== 201) throw new Error(`${path} ${res.status}: ${await res.text()}`);
      await res.arrayBuffer();
    }
  };
  await Promise.all(Array.from({ length: a.lanes }, lane));
  return performance.now() - started;
}

/** The service process's CPU time so far (ms), from /proc/<pid>/stat. */
function cpuMs(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime are fields 14 and 15 (1-based), 12 and 13 after the name; in clock ticks (100 a second).
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

export async function run() {
  if (!CHROMIUM) return { skipped: 'Chromium is not installed' };
  const rounds = Number(process.env['CONSOLE_PATHS_ROUNDS'] ?? 3);
  const service = await startService({ WORKER_IN_PROCESS: 'false' });
  const pid = service.child.pid as number;
  let browser: Browser | null = null;
  try {
    browser = await launchChromium();
    const login = await fetch(`${service.url}/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-tenant-subdomain': service.subdomain },
      body: JSON.stringify({ email: service.owner.email, password: service.owner.password }),
    });
    const t = (await login.json()) as { access_token: string; csrf_token: string };
    const credentials = {
      key: { 'x-api-key': service.apiKey },
      token: {
        authorization: `Bearer ${t.access_token}`,
        'x-tenant-subdomain': service.subdomain,
        'x-csrf-token': t.csrf_token,
      },
    };
    const files = Array.from({ length: FILES }, (_, i) => ({
      name: `note-${String(i).padStart(3, '0')}.txt`,
      text: `Note ${i}: ${'meeting minutes and small text '.repeat(130)}`,
    }));
    const page = await (await browser.newContext()).newPage();
    await page.goto(`${service.url}/healthz`);
    const wall = new Map<string, number[]>();
    const cpu = new Map<string, number[]>();
    for (let round = 0; round < rounds; round++) {
      // Rotate the order each round, so no variant always runs on the emptiest (or fullest) database.
      const order = VARIANTS.map((_, i) => VARIANTS[(i + round * 4) % VARIANTS.length] as Variant);
      for (const v of order) {
        const made = await fetch(`${service.url}/api/v1/folders`, {
          method: 'POST',
          headers: { ...credentials.key, 'content-type': 'application/json' },
          body: JSON.stringify({ name: `${v.name.replaceAll(' ', '-')}-${round}` }),
        });
        const folder = ((await made.json()) as { id: string }).id;
        const args: SendArgs = {
          base: v.client === 'node' ? service.url : '',
          headers: credentials[v.credential],
          folder,
          files,
          perRequest: v.perRequest,
          lanes: v.lanes ?? LANES,
          gets: GETS,
        };
        const before = cpuMs(pid);
        const ms = v.client === 'node' ? await send(args) : await page.evaluate(send, args);
        const used = cpuMs(pid) - before;
        wall.set(v.name, [...(wall.get(v.name) ?? []), ms]);
        cpu.set(v.name, [...(cpu.get(v.name) ?? []), used]);
      }
    }
    const per = (v: Variant) => (v.get ? GETS : FILES);
    return {
      files: FILES,
      lanes: LANES,
      rounds,
      variants: Object.fromEntries(
        VARIANTS.map((v) => [
          v.name,
          {
            wall_ms: Math.round(median(wall.get(v.name) ?? [])),
            service_cpu_ms: Math.round(median(cpu.get(v.name) ?? [])),
            service_cpu_ms_per_item: Number((median(cpu.get(v.name) ?? []) / per(v)).toFixed(2)),
            wall_runs: (wall.get(v.name) ?? []).map(Math.round),
          },
        ]),
      ),
      load_average: os.loadavg().map((l) => Number(l.toFixed(1))),
    };
  } finally {
    await browser?.close();
    await stop(service.child);
    fs.rmSync(service.dataDir, { recursive: true, force: true });
  }
}

if (import.meta.main) console.log(JSON.stringify(await run(), null, 2));
