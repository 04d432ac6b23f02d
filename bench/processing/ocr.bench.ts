import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { findTesseract } from '../../src/providers/extraction/native-tesseract.ts';

// OCR of a one-page 300-dpi scan (2550 x 3300 PNG, ~300 words) in a fresh process, as a worker
// would run it: wall time of the first and of a second page, and the process's peak RSS.
// Targets (issue 11): under 5 s, peak RSS under 400 MB. With each engine in the same run: the
// system's tesseract where it is on the PATH (issue 31: a page under 1 s, and per page at most
// 0.2 of tesseract.js's time) and tesseract.js. Peak RSS is the Node process's (a native
// tesseract process's own memory is not in it; it is bounded at 512 MB and killed past it).
// `OCR_BENCH_REPEAT=N`: each engine reads the page N more times; the ratios are then of the medians.

const ONCE = path.join(path.dirname(fileURLToPath(import.meta.url)), 'ocr-once.ts');

interface Once {
  engine: string;
  firstMs: number;
  secondMs: number;
  secondCpuMs: number;
  minCpuMs: number;
}

function once(engine: string): Promise<Once> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [ONCE, engine], { maxBuffer: 1024 * 1024, timeout: 600_000 }, (error, stdout) =>
      error ? reject(error) : resolve(JSON.parse(stdout) as Once),
    );
  });
}

export async function run(): Promise<unknown> {
  const wasm = await once('tesseract.js');
  const native = findTesseract() ? await once('tesseract') : null;
  // The second page of each (the first includes starting the engine), in wall time and in CPU time
  // (this process's and its children's), which a loaded machine skews less.
  const ratio = (a: number, b: number) => Number((a / b).toFixed(3));
  return {
    wasm,
    native,
    nativeToWasmPerPage: native ? ratio(native.secondMs, wasm.secondMs) : null,
    nativeToWasmCpuPerPage: native ? ratio(native.secondCpuMs, wasm.secondCpuMs) : null,
    nativeToWasmMinCpuPerPage: native ? ratio(native.minCpuMs, wasm.minCpuMs) : null,
  };
}

if (import.meta.main) console.log(JSON.stringify(await run(), null, 2));
