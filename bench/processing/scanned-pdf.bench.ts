import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

// A 100-page scanned PDF (each page a 300-dpi image only) through OCR in a fresh process, as a
// worker would extract it: it must complete, with the process's peak RSS under 400 MB (issue 11).
// SCANNED_PDF_PAGES=N for a shorter run.

const ONCE = path.join(path.dirname(fileURLToPath(import.meta.url)), 'scanned-pdf-once.ts');

export async function run(): Promise<unknown> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'scanned-pdf-bench-'));
  const file = path.join(dir, 'scan.pdf');
  try {
    await promisify(execFile)(process.execPath, [ONCE, 'write', file], { timeout: 10 * 60_000 });
    // With the memory settings of `npm run worker` (package.json), which the figure is about.
    const { stdout } = await promisify(execFile)(process.execPath, ['--max-semi-space-size=4', ONCE, 'extract', file], {
      env: {
        ...process.env,
        MALLOC_ARENA_MAX: process.env['MALLOC_ARENA_MAX'] ?? '2',
        MALLOC_MMAP_THRESHOLD_: process.env['MALLOC_MMAP_THRESHOLD_'] ?? '1048576',
      },
      maxBuffer: 1024 * 1024,
      timeout: 30 * 60_000,
    });
    const { size } = await fs.stat(file);
    return { ...(JSON.parse(stdout) as object), pdfMiB: Number((size / 1048576).toFixed(1)) };
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

if (import.meta.main) console.log(JSON.stringify(await run(), null, 2));
