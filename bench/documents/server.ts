import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { generatedChunks } from '../../test/providers/blobs/blob-test-helpers.ts';
import { freePort, startAndWait, stop } from '../support.ts';

// Shared by the document benchmarks: the service as a child process on a loopback port (so its
// memory is its own), a tenant to upload into, and streamed multipart uploads of generated PDFs.

const ADMIN_KEY = 'bench-admin-key-0123456789';
// BENCH_MAIN runs another entry instead, e.g. the production bundle: BENCH_MAIN=dist/main.js.
const MAIN = path.resolve(
  process.env['BENCH_MAIN'] ?? path.join(path.dirname(fileURLToPath(import.meta.url)), '../../src/main.ts'),
);

export interface BenchServer {
  child: ChildProcess;
  base: string;
  dataDir: string;
  apiKey: string;
  close(): Promise<void>;
}

/** Starts `main.ts serve` (API + in-process worker) on SQLite in a temp folder, with an enterprise tenant. */
export async function startServer(env: Record<string, string> = {}, main = MAIN): Promise<BenchServer> {
  const port = await freePort();
  const dataDir = await fsp.mkdtemp(path.join(os.tmpdir(), 'docs-bench-'));
  const base = `http://127.0.0.1:${port}`;
  const { child } = await startAndWait(
    [main, 'serve'],
    { PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, ADMIN_API_KEY: ADMIN_KEY, LOG_LEVEL: 'silent', ...env },
    `${base}/healthz`,
    30_000,
  );
  const res = await fetch(`${base}/api/v1/admin/tenants`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      name: 'Bench',
      subdomain: `bench-${port}`,
      tier: 'enterprise',
      owner: { email: 'bench@example.com', password: 'bench password 123', name: 'Bench' },
    }),
  });
  if (res.status !== 201) throw new Error(`tenant creation failed: ${res.status} ${await res.text()}`);
  const { api_key } = (await res.json()) as { api_key: string };
  return {
    child,
    base,
    dataDir,
    apiKey: api_key,
    async close() {
      await stop(child);
      await fsp.rm(dataDir, { recursive: true, force: true });
    },
  };
}

const PDF_HEAD = Buffer.from('%PDF-1.7\n');
const PDF_TAIL = Buffer.from('\n%%EOF\n');

/**
 * The bytes of a generated "PDF" of `size` bytes: header, generated body, trailer (never held
 * whole). A `salt` (a comment line after the header, inside the size) makes files of one size differ.
 */
export function* pdfChunks(size: number, chunkSize = 256 * 1024, salt = ''): Generator<Buffer> {
  const head = salt ? Buffer.concat([PDF_HEAD, Buffer.from(`%${salt}\n`)]) : PDF_HEAD;
  yield head;
  yield* generatedChunks(size - head.length - PDF_TAIL.length, chunkSize);
  yield PDF_TAIL;
}

/** Writes the same bytes to a file with a plain stream pipeline: the baseline the upload is compared with. */
export async function plainCopy(size: number, file: string, options: { fsync?: boolean } = {}): Promise<number> {
  const started = performance.now();
  await pipeline(Readable.from(pdfChunks(size)), fs.createWriteStream(file, { flush: options.fsync ?? false }));
  return performance.now() - started;
}

/** Streams one multipart upload of a generated PDF; resolves with status, body and milliseconds. */
export async function streamUpload(
  server: Pick<BenchServer, 'base' | 'apiKey'>,
  size: number,
  filename = 'bench.pdf',
  agent?: http.Agent,
  /** Another multipart endpoint than the upload (`/api/v1/documents/{id}/versions`), and a salt for pdfChunks. */
  options: { path?: string; salt?: string } = {},
): Promise<{ status: number; body: string; ms: number }> {
  const boundary = `bench${Math.random().toString(36).slice(2)}`;
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: application/pdf\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const url = new URL(options.path ?? '/api/v1/documents/upload', server.base);
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      {
        method: 'POST',
        agent,
        headers: {
          'x-api-key': server.apiKey,
          'content-type': `multipart/form-data; boundary=${boundary}`,
          'content-length': head.length + size + tail.length,
        },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body, ms: performance.now() - started }));
      },
    );
    req.on('error', reject);
    pipeline(
      Readable.from(
        (function* () {
          yield head;
          yield* pdfChunks(size, 256 * 1024, options.salt);
          yield tail;
        })(),
      ),
      req,
    ).catch(reject);
  });
}

/** VmHWM (peak) and VmRSS of a process, in bytes, from /proc. */
export function memoryOf(pid: number): { hwm: number; rss: number } {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0) * 1024;
  return { hwm: kb('VmHWM'), rss: kb('VmRSS') };
}
