import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startService } from './console/service.ts';
import { stop } from './support.ts';

const BIN = new URL('../packages/cli/bin/docuvault.ts', import.meta.url).pathname;
const FILES = 1000;
const CONCURRENCY = 8;

/** Runs the CLI to its end; answers the wall time and its --json summary, throwing on a failure. */
export function cli(
  args: string[],
  env: Record<string, string>,
): Promise<{ ms: number; summary: { uploaded: number; skipped: number } }> {
  const started = performance.now();
  const child = spawn(process.execPath, [BIN, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d) => (stdout += String(d)));
  child.stderr?.on('data', (d) => (stderr += String(d)));
  return new Promise((resolve, reject) =>
    child.on('close', (code) =>
      code === 0
        ? resolve({ ms: performance.now() - started, summary: JSON.parse(stdout) })
        : reject(new Error(`cli ${code}: ${stderr}`)),
    ),
  );
}

/** The baseline: the same files, POSTed by a plain concurrent fetch loop into one folder. */
async function fetchLoop(url: string, apiKey: string, dir: string, names: string[]): Promise<number> {
  const started = performance.now();
  const folder = await fetch(`${url}/api/v1/folders`, {
    method: 'POST',
    headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'baseline' }),
  });
  const folderId = ((await folder.json()) as { id: string }).id;
  let next = 0;
  const lane = async () => {
    while (next < names.length) {
      const name = names[next++] as string;
      const form = new FormData();
      form.append('folder_id', folderId);
      form.append('enable_ai', 'false');
      form.append('file', new Blob([fs.readFileSync(path.join(dir, name))]), name);
      const res = await fetch(`${url}/api/v1/documents/upload`, {
        method: 'POST',
        headers: { 'x-api-key': apiKey },
        body: form,
      });
      if (res.status !== 201) throw new Error(`upload ${res.status}: ${await res.text()}`);
      await res.arrayBuffer();
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, lane));
  return performance.now() - started;
}

/**
 * CLI upload of 1,000 small files (`docuvault upload --concurrency 8 --no-ai`, a fresh process
 * with its resume log and folder mirroring) against a plain concurrent fetch loop sending the same
 * files with the same concurrency, same service, same run; then a re-run of the CLI, which must send
 * nothing. Throughput ratio = baseline time / CLI time.
 */
export async function run() {
  const service = await startService();
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'dms-bench-cli-'));
  try {
    const dir = path.join(work, 'notes');
    fs.mkdirSync(dir);
    const names = Array.from({ length: FILES }, (_, i) => `note-${String(i).padStart(4, '0')}.txt`);
    for (const [i, name] of names.entries())
      fs.writeFileSync(path.join(dir, name), `Note ${i}: ${'small text '.repeat(20)}`);
    const env = {
      DOCUVAULT_CONFIG: path.join(work, 'config.json'),
      DOCUVAULT_URL: service.url,
      DOCUVAULT_API_KEY: service.apiKey,
    };
    const args = [
      'upload',
      dir,
      '--to',
      '/cli',
      '--concurrency',
      String(CONCURRENCY),
      '--no-ai',
      '--no-progress',
      '--json',
    ];
    const baselineMs = await fetchLoop(service.url, service.apiKey, dir, names);
    const first = await cli(args, env);
    const rerun = await cli(args, env);
    const cliMs = first.ms;
    return {
      files: FILES,
      concurrency: CONCURRENCY,
      baseline_fetch_ms: Math.round(baselineMs),
      cli_ms: Math.round(cliMs),
      baseline_files_per_s: Math.round(FILES / (baselineMs / 1000)),
      cli_files_per_s: Math.round(FILES / (cliMs / 1000)),
      ratio: Number((baselineMs / cliMs).toFixed(2)),
      cli_uploaded: first.summary.uploaded,
      rerun_ms: Math.round(rerun.ms),
      rerun_uploaded: rerun.summary.uploaded,
      rerun_skipped: rerun.summary.skipped,
    };
  } finally {
    await stop(service.child);
    fs.rmSync(work, { recursive: true, force: true });
    fs.rmSync(service.dataDir, { recursive: true, force: true });
  }
}
