import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createExtractor } from '../../src/providers/extraction/extractor.ts';
import type { OcrPreference } from '../../src/providers/extraction/ocr-choice.ts';
import { textPng } from '../../test/fixtures/extraction/media.ts';
import { cpuMs } from './cpu-time.ts';
import { prose } from './corpus.ts';

// Child side of ocr.bench.ts: prints {engine, firstMs, secondMs, words, recognised, peakRssMiB}, with
// the OCR engine of argv[2] (`tesseract` or `tesseract.js`; default: what the service would choose).
// `OCR_BENCH_REPEAT=N` reads the page N times after the first: `second*` are then the medians and
// `min*` the fastest, which a loaded machine (other processes on the same cores) skews least.
const REPEAT = Math.max(1, Number(process.env['OCR_BENCH_REPEAT'] ?? 1));
const lines = prose(7, 300)
  .join(' ')
  .match(/.{1,70}(\s|$)/g)!
  .slice(0, 40)
  .map((l) => l.trim());
const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'ocr-bench-'));
const file = path.join(dir, 'scan.png');
await fs.writeFile(file, textPng(lines, { width: 2550, height: 3300, fontPx: 42 }));
const extractor = createExtractor({ threads: 1, ocrEngine: (process.argv[2] ?? 'auto') as OcrPreference });
const expected = lines
  .join(' ')
  .toLowerCase()
  .match(/[a-z0-9]+/g)!;
const time = async () => {
  const t0 = performance.now();
  const c0 = await cpuMs();
  const out = await extractor.extract({ path: file, extension: 'png', mediaType: 'image/png' });
  return { ms: performance.now() - t0, cpuMs: (await cpuMs()) - c0, text: out.text };
};
const first = await time();
const later: { ms: number; cpuMs: number }[] = [];
for (let i = 0; i < REPEAT; i++) later.push(await time());
const median = (values: number[]) => values.sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)] as number;
const got = new Set(first.text.toLowerCase().match(/[a-z0-9]+/g) ?? []);
const recognised = expected.filter((w) => got.has(w)).length;
const status = await fs.readFile('/proc/self/status', 'utf8');
const hwm = Number(/^VmHWM:\s+(\d+) kB/m.exec(status)?.[1] ?? 0) / 1024;
await extractor.close();
await fs.rm(dir, { recursive: true, force: true });
process.stdout.write(
  JSON.stringify({
    engine: extractor.capabilities().ocrEngine,
    firstMs: Math.round(first.ms),
    secondMs: Math.round(median(later.map((t) => t.ms))),
    firstCpuMs: first.cpuMs,
    secondCpuMs: median(later.map((t) => t.cpuMs)),
    minMs: Math.round(Math.min(...later.map((t) => t.ms))),
    minCpuMs: Math.min(...later.map((t) => t.cpuMs)),
    repeat: REPEAT,
    loadAverage: os.loadavg().map((l) => Number(l.toFixed(1))),
    words: expected.length,
    wordAccuracy: Number((recognised / expected.length).toFixed(3)),
    peakRssMiB: Math.round(hwm),
  }),
);
