import { execFile, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFile, rm } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { findOnPath } from './binary-on-path.ts';
import type { OcrRecognizer, RecognizeOptions } from './ocr-engine.ts';
import { bandCut, bands } from './page-bands.ts';
import { pgm } from './pgm.ts';
import type { GreyImage, OcrResult } from './thread-protocol.ts';

/**
 * OCR with the system's `tesseract` (Debian's `tesseract-ocr` and `tesseract-ocr-eng`): a process
 * per image, about 10x faster than tesseract.js's WebAssembly build and about 35 MB a page. The
 * same settings as the tesseract.js engine (English, LSTM, automatic page segmentation), and the
 * same answer: the page's text and the mean word confidence.
 *
 * Bounded as the ffmpeg path is: a process that outlives its time or its memory is killed
 * (SIGKILL), so is one whose recognition is aborted. Up to `processes` images at a time (default:
 * two, or one on a one-core machine), started in the order asked; each process runs on one thread
 * (`OMP_THREAD_LIMIT=1`): on a shared machine tesseract's OpenMP threads spin against the
 * extraction threads and the API for less than they gain, while a second process reads the next
 * page of a scan on the other core (a 150-dpi letter page is ~1.4 s of one core's time). A page
 * that finds both processes free is cut in two at a gap between lines (page-bands.ts) and its
 * halves read at once: half the wall time of a lone page for ~10% more CPU (two starts, two layouts).
 */

/** The most one recognition may take before its process is killed; the pool's per-page timer usually ends it first. */
const DEFAULT_TIMEOUT_MS = 120_000;
/** The most memory (resident) one tesseract process may hold; a page of 2000 x 2800 takes about 35-60 MB. */
const DEFAULT_MEMORY_MB = 512;
/** How often the process's resident memory is read. */
const MEMORY_POLL_MS = 100;

/** Where `tesseract` is on the PATH, or null. */
export function findTesseract(path = process.env.PATH ?? ''): string | null {
  return findOnPath('tesseract', path);
}

/** The languages the binary has data for (`tesseract --list-langs`); empty when it does not run within a few seconds. */
export function tesseractLanguages(binary: string): Promise<string[]> {
  return new Promise((resolve) => {
    const child = execFile(binary, ['--list-langs'], { timeout: 5_000 }, (error, stdout, stderr) => {
      if (error) return resolve([]);
      // Tesseract 4 printed the list on stderr, 5 prints it on stdout; the first line names the folder.
      const lines = `${stdout}\n${stderr}`.split('\n').map((l) => l.trim());
      resolve(lines.filter((l) => /^[a-z_]+$/i.test(l)));
    });
    // A check in the background never keeps the process alive.
    child.unref();
  });
}

/** What one tesseract run read: its text, and its words' confidences summed (bands of a page are merged by them). */
interface Reading {
  text: string;
  confidenceSum: number;
  words: number;
}

/** The answer of a tesseract run: text from the txt output, confidence from the tsv one. */
export function parseTesseractOutput(text: string, tsv: string): OcrResult {
  return answer(reading(text, tsv));
}

function reading(text: string, tsv: string): Reading {
  let confidenceSum = 0;
  let words = 0;
  for (const line of tsv.split('\n').slice(1)) {
    const cells = line.split('\t');
    // Level 5 rows are words; -1 marks rows that carry no recognised word.
    if (cells[0] !== '5' || cells.length < 12) continue;
    const conf = Number(cells[10]);
    if (Number.isFinite(conf) && conf >= 0) {
      confidenceSum += conf;
      words++;
    }
  }
  return { text, confidenceSum, words };
}

/** The page's text and its mean word confidence, as tesseract.js answers. */
function answer({ text, confidenceSum, words }: Reading): OcrResult {
  return { text, confidence: words ? Math.round(confidenceSum / words) : 0 };
}

/** The bands of one page as one reading: top text, then bottom text, as a run over the whole page lists them. */
function merged(top: Reading, bottom: Reading): Reading {
  const text = [top.text, bottom.text].filter((t) => t.trim() !== '').map((t) => t.trimEnd());
  return {
    text: text.length ? `${text.join('\n')}\n` : '',
    confidenceSum: top.confidenceSum + bottom.confidenceSum,
    words: top.words + bottom.words,
  };
}

interface Queued {
  image: GreyImage;
  options: RecognizeOptions;
  resolve(result: Reading): void;
  reject(error: Error): void;
}

export class NativeTesseract implements OcrRecognizer {
  readonly #binary: string;
  readonly #language: string;
  readonly #timeoutMs: number;
  readonly #memoryBytes: number;
  readonly #processes: number;
  #queue: Queued[] = [];
  readonly #running = new Set<Promise<void>>();
  #closed = false;
  /** Processes started, for tests. */
  processesStarted = 0;

  constructor(options: {
    binary: string;
    language?: string;
    timeoutMs?: number;
    memoryMb?: number;
    processes?: number | undefined;
  }) {
    this.#binary = options.binary;
    this.#language = options.language ?? 'eng';
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.#memoryBytes = (options.memoryMb ?? DEFAULT_MEMORY_MB) * 1024 * 1024;
    this.#processes = Math.max(1, options.processes ?? defaultProcesses());
  }

  parallel(): number {
    return this.#processes;
  }

  async recognize(image: GreyImage, options: RecognizeOptions = {}): Promise<OcrResult> {
    const cut = this.#allFree() ? bandCut(image) : null;
    return answer(cut === null ? await this.#read(image, options) : await this.#readBands(image, cut, options));
  }

  /** Every process free and nothing waiting: a page may take two of them. */
  #allFree(): boolean {
    return this.#processes >= 2 && this.#running.size === 0 && this.#queue.length === 0;
  }

  /** The page's two bands at once; one failing stops the other, so does aborting the page. */
  async #readBands(image: GreyImage, cut: number, { signal, onStart }: RecognizeOptions): Promise<Reading> {
    const both = new AbortController();
    const stop = () => both.abort();
    signal?.addEventListener('abort', stop, { once: true });
    try {
      if (signal?.aborted) stop();
      const [top, bottom] = bands(image, cut);
      const read = (band: GreyImage, options: RecognizeOptions) =>
        this.#read(band, options).catch((error: unknown) => {
          stop();
          throw error;
        });
      const [a, b] = await Promise.all([
        read(top, { signal: both.signal, onStart }),
        read(bottom, { signal: both.signal }),
      ]);
      return merged(a, b);
    } finally {
      signal?.removeEventListener('abort', stop);
    }
  }

  #read(image: GreyImage, options: RecognizeOptions): Promise<Reading> {
    if (this.#closed) return Promise.reject(new Error('the OCR engine is closed'));
    if (options.signal?.aborted) return Promise.reject(new Error('OCR aborted'));
    return new Promise((resolve, reject) => {
      const item: Queued = { image, options, resolve, reject };
      // Aborted while queued: leave the queue at once.
      options.signal?.addEventListener(
        'abort',
        () => {
          if (!this.#queue.includes(item)) return;
          this.#queue = this.#queue.filter((q) => q !== item);
          reject(new Error('OCR aborted'));
        },
        { once: true },
      );
      this.#queue.push(item);
      this.#pump();
    });
  }

  async close(): Promise<void> {
    this.#closed = true;
    for (const item of this.#queue) item.reject(new Error('the OCR engine is closed'));
    this.#queue = [];
    await Promise.all(this.#running);
  }

  #pump(): void {
    while (!this.#closed && this.#running.size < this.#processes) {
      const item = this.#queue.shift();
      if (!item) return;
      const running = this.#start(item).finally(() => {
        this.#running.delete(running);
        this.#pump();
      });
      this.#running.add(running);
    }
  }

  async #start(item: Queued): Promise<void> {
    try {
      item.options.onStart?.();
      item.resolve(await this.#run(item.image, item.options.signal));
    } catch (error) {
      item.reject(error instanceof Error ? error : new Error(String(error)));
    }
  }

  /** One tesseract process: the image as PGM on stdin, txt and tsv written beside a temp base name. */
  async #run(image: GreyImage, signal: AbortSignal | undefined): Promise<Reading> {
    const base = join(tmpdir(), `docuvault-ocr-${randomUUID()}`);
    this.processesStarted++;
    try {
      await new Promise<void>((resolve, reject) => {
        const child = spawn(
          this.#binary,
          ['stdin', base, '-l', this.#language, '--oem', '1', '--psm', '3', '-c', 'page_separator=', 'txt', 'tsv'],
          { stdio: ['pipe', 'ignore', 'pipe'], env: { ...process.env, OMP_THREAD_LIMIT: '1' } },
        );
        let stderr = '';
        let settled = false;
        child.stderr.on('data', (chunk: Buffer) => {
          if (stderr.length < 4000) stderr += chunk.toString('utf8');
        });
        const stop = (error: Error) => {
          if (settled) return;
          settled = true;
          cleanup();
          child.kill('SIGKILL');
          reject(error);
        };
        const timer = setTimeout(
          () => stop(new Error(`tesseract took longer than ${Math.round(this.#timeoutMs / 1000)} s`)),
          this.#timeoutMs,
        );
        const memory = setInterval(() => {
          void residentBytes(child.pid).then((bytes) => {
            if (bytes > this.#memoryBytes)
              stop(new Error(`tesseract used more than ${Math.round(this.#memoryBytes / 1024 / 1024)} MB`));
          });
        }, MEMORY_POLL_MS);
        const onAbort = () => stop(new Error('OCR aborted'));
        signal?.addEventListener('abort', onAbort, { once: true });
        const cleanup = () => {
          clearTimeout(timer);
          clearInterval(memory);
          signal?.removeEventListener('abort', onAbort);
        };
        child.on('error', (error) =>
          stop(new Error(`tesseract could not be started: ${error.message}`, { cause: error })),
        );
        // A process killed before it read its input closes the pipe: not an error of its own.
        child.stdin.on('error', () => {});
        // 'close', not 'exit': the last stderr lines (why it failed) can arrive after the process exited.
        child.on('close', (code, sig) => {
          if (settled) return;
          settled = true;
          cleanup();
          if (code === 0) return resolve();
          const reason = stderr.trim().split('\n').slice(-2).join(' ').slice(0, 300);
          reject(new Error(`tesseract failed (${sig ?? `exit ${code}`})${reason ? `: ${reason}` : ''}`));
        });
        child.stdin.end(pgm(image));
      });
      const [text, tsv] = await Promise.all([readFile(`${base}.txt`, 'utf8'), readFile(`${base}.tsv`, 'utf8')]);
      return reading(text, tsv);
    } finally {
      await Promise.all([rm(`${base}.txt`, { force: true }), rm(`${base}.tsv`, { force: true })]);
    }
  }
}

/** Two processes where there are two cores: a scan's next page is read while this one is. */
function defaultProcesses(): number {
  return Math.min(2, availableParallelism());
}

/** A process's resident memory (Linux `/proc`), 0 where it cannot be read. */
async function residentBytes(pid: number | undefined): Promise<number> {
  if (!pid) return 0;
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8');
    const kb = /^VmRSS:\s+(\d+) kB/m.exec(status)?.[1];
    return kb ? Number(kb) * 1024 : 0;
  } catch {
    return 0;
  }
}
