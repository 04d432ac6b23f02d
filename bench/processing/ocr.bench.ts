import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

// OCR of a one-page 300-dpi scan (2550 x 3300 PNG, ~300 words) in a fresh process, as a worker
// would run it: wall time of the first and of a second page, and the process's peak RSS.
// Targets (issue 11): under 5 s, peak RSS under 400 MB.

const ONCE = path.join(path.dirname(fileURLToPath(import.meta.url)), 'ocr-once.ts');

export function run(): Promise<unknown> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [ONCE], { maxBuffer: 1024 * 1024, timeout: 120_000 }, (error, stdout) =>
      error ? reject(error) : resolve(JSON.parse(stdout) as unknown),
    );
  });
}
