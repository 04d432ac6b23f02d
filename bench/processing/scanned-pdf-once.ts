import fs from 'node:fs/promises';
import { createExtractor } from '../../src/providers/extraction/extractor.ts';
import { textCanvas } from '../../test/fixtures/extraction/media.ts';
import { pdf } from '../../test/fixtures/extraction/pdf.ts';
import { prose } from './corpus.ts';

// Both sides of scanned-pdf.bench.ts. `write <file>`: a PDF of PAGES letter pages, each only a
// 300-dpi greyscale image of ~40 lines of text (a scan). `extract <file>` (a fresh process, so its
// peak RSS is the extraction's alone): one extraction thread reads it as a worker would; prints
// {pages, pagesWithText, ms, msPerPage, wordAccuracy, peakRssMiB}.
const PAGES = Number(process.env['SCANNED_PDF_PAGES'] ?? 100);
const [mode, file] = process.argv.slice(2) as ['write' | 'extract', string];
const lines = prose(11, 300)
  .join(' ')
  .match(/.{1,70}(\s|$)/g)!
  .slice(0, 40)
  .map((l) => l.trim());
if (mode === 'write') {
  const page = textCanvas(lines, { width: 2550, height: 3300, fontPx: 42 });
  await fs.writeFile(file, pdf(Array.from({ length: PAGES }, () => ({ image: page }))));
  process.exit(0);
}
const extractor = createExtractor({ threads: 1 });
const started = performance.now();
const out = await extractor.extract({ path: file, extension: 'pdf', mediaType: 'application/pdf' });
const ms = performance.now() - started;
const expected = lines.join(' ').toLowerCase().match(/[a-z0-9]+/g)!;
const got = new Set(out.text.toLowerCase().match(/[a-z0-9]+/g) ?? []);
const status = await fs.readFile('/proc/self/status', 'utf8');
const hwm = Number(/^VmHWM:\s+(\d+) kB/m.exec(status)?.[1] ?? 0) / 1024;
await extractor.close();
process.stdout.write(
  JSON.stringify({
    pages: PAGES,
    pagesWithText: out.pages?.filter((p) => p.trim() !== '').length ?? null,
    ms: Math.round(ms),
    msPerPage: Math.round(ms / PAGES),
    wordAccuracy: Number((expected.filter((w) => got.has(w)).length / expected.length).toFixed(3)),
    peakRssMiB: Math.round(hwm),
  }),
);
