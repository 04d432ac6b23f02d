import fs from 'node:fs/promises';
import os from 'node:os';
import { createExtractor } from '../../src/providers/extraction/extractor.ts';
import type { OcrPreference } from '../../src/providers/extraction/ocr-choice.ts';
import { cpuMs } from './cpu-time.ts';

// Both sides of scanned-pdf.bench.ts. `write <file>`: a PDF of PAGES letter pages, each only a
// 300-dpi greyscale image of ~40 lines of text (a scan), and beside it `<file>.json`, the lines.
// `extract <file>` (a fresh process that loads nothing but the extractor, so its peak RSS is the
// extraction's alone): one extraction thread reads it as a worker would; prints {pages,
// pagesWithText, ocrPages, ocrSkippedPages, ms, msPerPage, wordAccuracy, peakRssMiB, loadAverage}.
const PAGES = Number(process.env['SCANNED_PDF_PAGES'] ?? 100);
const [mode, file] = process.argv.slice(2) as ['write' | 'extract', string];
if (mode === 'write') {
  const { prose } = await import('./corpus.ts');
  const { textCanvas } = await import('../../test/fixtures/extraction/media.ts');
  const { pdf } = await import('../../test/fixtures/extraction/pdf.ts');
  const lines = prose(11, 300)
    .join(' ')
    .match(/.{1,70}(\s|$)/g)!
    .slice(0, 40)
    .map((l) => l.trim());
  const page = textCanvas(lines, { width: 2550, height: 3300, fontPx: 42 });
  await fs.writeFile(file, pdf(Array.from({ length: PAGES }, () => ({ image: page }))));
  await fs.writeFile(`${file}.json`, JSON.stringify(lines));
  process.exit(0);
}
const lines = JSON.parse(await fs.readFile(`${file}.json`, 'utf8')) as string[];
// `SCANNED_PDF_ENGINE=tesseract|tesseract.js` picks the OCR engine (default: what the service would choose).
// `SCANNED_PDF_PAGE_TIMEOUT_MS` raises the per-page allowance (default 30 s) for a loaded machine.
const extractor = createExtractor({
  threads: 1,
  ocrEngine: (process.env['SCANNED_PDF_ENGINE'] ?? 'auto') as OcrPreference,
  ocrPageTimeoutMs: Number(process.env['SCANNED_PDF_PAGE_TIMEOUT_MS'] ?? 30_000),
  // `SCANNED_PDF_OCR_PROCESSES=1`: native tesseract reads one page at a time (the baseline of the overlap).
  ocrProcesses: process.env['SCANNED_PDF_OCR_PROCESSES'] ? Number(process.env['SCANNED_PDF_OCR_PROCESSES']) : undefined,
});
const started = performance.now();
const cpuStarted = await cpuMs();
const out = await extractor.extract({ path: file, extension: 'pdf', mediaType: 'application/pdf' });
const ms = performance.now() - started;
const cpu = (await cpuMs()) - cpuStarted;
const expected = lines
  .join(' ')
  .toLowerCase()
  .match(/[a-z0-9]+/g)!;
const got = new Set(out.text.toLowerCase().match(/[a-z0-9]+/g) ?? []);
const status = await fs.readFile('/proc/self/status', 'utf8');
const hwm = Number(/^VmHWM:\s+(\d+) kB/m.exec(status)?.[1] ?? 0) / 1024;
const engine = extractor.capabilities().ocrEngine;
await extractor.close();
const pages = out.pages ?? [];
process.stdout.write(
  JSON.stringify({
    engine,
    pages: pages.length,
    pagesWithText: pages.filter((p) => p.trim() !== '').length,
    ocrPages: out.metadata['ocr_pages'] ?? 0,
    ocrSkippedPages: out.metadata['ocr_skipped_pages'] ?? 0,
    ms: Math.round(ms),
    msPerPage: Math.round(ms / Math.max(1, pages.length)),
    cpuMsPerPage: Math.round(cpu / Math.max(1, pages.length)),
    wordAccuracy: Number((expected.filter((w) => got.has(w)).length / expected.length).toFixed(3)),
    peakRssMiB: Math.round(hwm),
    loadAverage: os.loadavg().map((l) => Number(l.toFixed(2))),
  }),
);
