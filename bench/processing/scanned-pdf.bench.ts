import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { findTesseract } from '../../src/providers/extraction/native-tesseract.ts';

// A 100-page scanned PDF (each page a 300-dpi image only) through OCR in a fresh process, as a
// worker would extract it: it must complete, with the process's peak RSS under 400 MB (issue 11).
// SCANNED_PDF_PAGES=N for a shorter run. With the system's tesseract, the same file is read twice in
// the same run: one page at a time (OCR processes 1, the baseline) and as the service does (two
// processes, the next page prepared while earlier ones are read); `ratio` is the second's time over the first's.

const ONCE = path.join(path.dirname(fileURLToPath(import.meta.url)), 'scanned-pdf-once.ts');

export async function run(): Promise<unknown> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'scanned-pdf-bench-'));
  const file = path.join(dir, 'scan.pdf');
  try {
    await promisify(execFile)(process.execPath, [ONCE, 'write', file], { timeout: 10 * 60_000 });
    const extract = async (ocrProcesses?: number) => {
      // With the memory settings of `npm run worker` (package.json), which the figure is about.
      const { stdout } = await promisify(execFile)(
        process.execPath,
        ['--max-semi-space-size=4', ONCE, 'extract', file],
        {
          env: {
            ...process.env,
            MALLOC_ARENA_MAX: process.env['MALLOC_ARENA_MAX'] ?? '2',
            MALLOC_MMAP_THRESHOLD_: process.env['MALLOC_MMAP_THRESHOLD_'] ?? '1048576',
            ...(ocrProcesses ? { SCANNED_PDF_OCR_PROCESSES: String(ocrProcesses) } : {}),
          },
          maxBuffer: 1024 * 1024,
          timeout: 30 * 60_000,
        },
      );
      return JSON.parse(stdout) as { engine: string; ms: number; cpuMsPerPage: number };
    };
    const pdfMiB = Number(((await fs.stat(file)).size / 1048576).toFixed(1));
    const native = findTesseract() !== null && process.env['SCANNED_PDF_ENGINE'] !== 'tesseract.js';
    if (!native) return { ...(await extract()), pdfMiB };
    const onePageAtATime = await extract(1);
    const overlapped = await extract();
    return { onePageAtATime, overlapped, ratio: Number((overlapped.ms / onePageAtATime.ms).toFixed(3)), pdfMiB };
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

if (import.meta.main) console.log(JSON.stringify(await run(), null, 2));
