import { bytes } from '../io.ts';

/** Counts of an upload run, rendered as a one-line bar with throughput and ETA. */
export class UploadProgress {
  readonly totalFiles: number;
  readonly totalBytes: number;
  uploaded = 0;
  skipped = 0;
  failed = 0;
  #bytesDone = 0;
  #inFlight = new Map<string, number>();
  readonly #started = Date.now();
  readonly #stream: NodeJS.WritableStream & { columns?: number };
  #timer: NodeJS.Timeout | null = null;

  constructor(
    totalFiles: number,
    totalBytes: number,
    stream: NodeJS.WritableStream & { columns?: number },
    live: boolean,
  ) {
    this.totalFiles = totalFiles;
    this.totalBytes = totalBytes;
    this.#stream = stream;
    if (live) this.#timer = setInterval(() => this.#render(), 200).unref();
  }

  /** Bytes of a file sent so far (from the SDK's progress callback). */
  sending(path: string, loaded: number): void {
    this.#inFlight.set(path, loaded);
  }

  /** A file is finished: uploaded, skipped (already there) or failed; its bytes count as done either way. */
  finish(path: string, size: number, outcome: 'uploaded' | 'skipped' | 'failed'): void {
    this.#inFlight.delete(path);
    this.#bytesDone += size;
    this[outcome]++;
  }

  get elapsedSeconds(): number {
    return (Date.now() - this.#started) / 1000;
  }

  stop(): void {
    if (this.#timer) {
      clearInterval(this.#timer);
      this.#render();
      this.#stream.write('\n');
    }
  }

  #render(): void {
    const sent = this.#bytesDone + [...this.#inFlight.values()].reduce((a, b) => a + b, 0);
    const done = this.uploaded + this.skipped + this.failed;
    const rate = sent / Math.max(this.elapsedSeconds, 0.001);
    const eta = rate > 0 ? Math.round((this.totalBytes - sent) / rate) : 0;
    const share = this.totalBytes > 0 ? sent / this.totalBytes : done / Math.max(this.totalFiles, 1);
    const width = 24;
    const filled = Math.round(Math.min(share, 1) * width);
    const line = `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${this.totalFiles} files  ${bytes(sent)}/${bytes(this.totalBytes)}  ${bytes(rate)}/s  ETA ${formatSeconds(eta)}${this.failed ? `  ${this.failed} failed` : ''}`;
    this.#stream.write(`\r${line.slice(0, (this.#stream.columns ?? 120) - 1)}\u001b[K`);
  }
}

function formatSeconds(total: number): string {
  const m = Math.floor(total / 60);
  const s = total % 60;
  return `${m}:${String(s).padStart(2, '0')}`;
}
