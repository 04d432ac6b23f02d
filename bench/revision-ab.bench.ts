import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { LoadResult } from './auth/load-generator.ts';
import { median } from './support.ts';

// The hot paths of this tree against an earlier revision, A/B in one run (issue 28: "no behaviour
// change", hot paths within noise). The earlier revision is checked out beside this one (a detached
// git worktree sharing this tree's node_modules) and each side serves from its own
// bench/auth/serve-app.ts (SQLite, its own DATA_DIR, no worker). Rounds alternate which side runs
// first; each round measures, per side:
//   - authenticated GET /users/{id} with X-API-Key: bench/auth/load-generator.ts in its own process;
//   - uploads: a closed loop of UPLOAD_CONNECTIONS clients posting 4 KB text files (this process).
// Webhook delivery is not part of it: it has no HTTP surface to load from outside (its own bench,
// bench/webhooks.bench.ts, runs in process).
// AB_CURRENT=<rev> serves that revision instead of this tree, so a pair can bracket only some commits
// (e.g. a merge and its first parent); AB_BASE=HEAD against this tree is an A/A run: the noise floor.
//   AB_BASE=<rev> [AB_CURRENT=<rev>] AB_ROUNDS=5 AB_SECONDS=5 npm run bench revision-ab

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..');
/** The commit before the typed job/event registries: where issue 28's refactoring began. */
const BASE = process.env['AB_BASE'] ?? '30aa52e^';
const CURRENT = process.env['AB_CURRENT'];
const ROUNDS = Number(process.env['AB_ROUNDS'] ?? 5);
const SECONDS = Number(process.env['AB_SECONDS'] ?? 5);
const GET_CONNECTIONS = 50;
const UPLOAD_CONNECTIONS = 8;

interface Served {
  child: ChildProcess;
  url: string;
  headers: Record<string, string>;
  dataDir: string;
}

async function serve(tree: string, port: number): Promise<Served> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-ab-'));
  const child = spawn(process.execPath, [path.join(tree, 'bench/auth/serve-app.ts')], {
    cwd: tree,
    env: { ...process.env, PORT: String(port), DATA_DIR: dataDir, DATABASE_URL: '', REDIS_URL: '' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const [line] = (await once(createInterface({ input: child.stdout! }), 'line')) as [string];
  const { url, headers } = JSON.parse(line) as { url: string; headers: Record<string, string> };
  return { child, url, headers, dataDir };
}

async function stop(side: Served): Promise<void> {
  side.child.kill('SIGTERM');
  await once(side.child, 'exit');
  fs.rmSync(side.dataDir, { recursive: true, force: true });
}

async function getLoad(side: Served): Promise<LoadResult> {
  const child = spawn(
    process.execPath,
    [
      path.join(here, 'auth/load-generator.ts'),
      side.url,
      String(GET_CONNECTIONS),
      String(SECONDS),
      JSON.stringify(side.headers),
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let out = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    out += chunk;
  });
  await once(child, 'exit');
  return JSON.parse(out) as LoadResult;
}

/** Uploads per second over SECONDS: UPLOAD_CONNECTIONS clients, each posting the next file when answered. */
async function uploadLoad(side: Served): Promise<{ rps: number; failed: number }> {
  const target = new URL('/api/v1/documents/upload', side.url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: UPLOAD_CONNECTIONS });
  const boundary = `ab${randomBytes(8).toString('hex')}`;
  let done = 0;
  let failed = 0;
  let stopAt = 0;
  const post = () =>
    new Promise<void>((resolve) => {
      const body = Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="enable_ai"\r\n\r\nfalse\r\n` +
          `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="note.txt"\r\n` +
          `Content-Type: text/plain\r\n\r\n${randomBytes(2048).toString('hex')}\r\n--${boundary}--\r\n`,
      );
      const req = http.request(
        {
          agent,
          host: target.hostname,
          port: target.port,
          path: target.pathname,
          method: 'POST',
          headers: {
            ...side.headers,
            'content-type': `multipart/form-data; boundary=${boundary}`,
            'content-length': body.length,
          },
        },
        (res) => {
          res.resume();
          res.on('end', () => {
            if (res.statusCode === 201) done += 1;
            else failed += 1;
            resolve();
          });
        },
      );
      req.on('error', () => {
        failed += 1;
        resolve();
      });
      req.end(body);
    });
  const client = async () => {
    while (Date.now() < stopAt) await post();
  };
  stopAt = Date.now() + 1000; // warm-up
  await Promise.all(Array.from({ length: UPLOAD_CONNECTIONS }, client));
  done = 0;
  failed = 0;
  const began = performance.now();
  stopAt = Date.now() + SECONDS * 1000;
  await Promise.all(Array.from({ length: UPLOAD_CONNECTIONS }, client));
  agent.destroy();
  return { rps: Math.round(done / ((performance.now() - began) / 1000)), failed };
}

/** A detached worktree of `rev` beside this tree, sharing its node_modules; answers its path and short commit. */
function checkout(rev: string): { tree: string; commit: string } {
  const tree = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-ab-'));
  const commit = execFileSync('git', ['rev-parse', '--short', rev], { cwd: root, encoding: 'utf8' }).trim();
  execFileSync('git', ['worktree', 'add', '--detach', tree, commit], { cwd: root, stdio: 'ignore' });
  fs.symlinkSync(path.join(root, 'node_modules'), path.join(tree, 'node_modules'));
  return { tree, commit };
}

export async function run() {
  const base = checkout(BASE);
  const current = CURRENT ? checkout(CURRENT) : { tree: root, commit: 'this tree' };
  const worktrees = [base.tree, ...(CURRENT ? [current.tree] : [])];
  const commit = base.commit;
  const sides = { current: await serve(current.tree, 18_301), base: await serve(base.tree, 18_302) };
  const rounds: { get: Record<string, number>; upload: Record<string, number> }[] = [];
  try {
    for (let r = 0; r < ROUNDS; r++) {
      const order = r % 2 === 0 ? (['current', 'base'] as const) : (['base', 'current'] as const);
      const round = { get: {} as Record<string, number>, upload: {} as Record<string, number> };
      for (const name of order) round.get[name] = (await getLoad(sides[name])).rps;
      for (const name of order) round.upload[name] = (await uploadLoad(sides[name])).rps;
      rounds.push(round);
      process.stderr.write(`round ${r + 1}: ${JSON.stringify(round)}\n`);
    }
  } finally {
    await stop(sides.current);
    await stop(sides.base);
    for (const tree of worktrees)
      execFileSync('git', ['worktree', 'remove', '--force', tree], { cwd: root, stdio: 'ignore' });
  }
  const summary = (kind: 'get' | 'upload') => {
    const ratios = rounds.map((r) => r[kind]['current']! / r[kind]['base']!);
    return {
      current_rps: median(rounds.map((r) => r[kind]['current']!)),
      base_rps: median(rounds.map((r) => r[kind]['base']!)),
      median_ratio: Number(median(ratios).toFixed(3)),
      ratios: ratios.map((x) => Number(x.toFixed(3))),
    };
  };
  return {
    base: commit,
    current: current.commit,
    rounds: ROUNDS,
    seconds: SECONDS,
    load_average: os.loadavg().map((x) => Number(x.toFixed(2))),
    authenticated_get: summary('get'),
    upload: summary('upload'),
  };
}
