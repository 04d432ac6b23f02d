import { execFile } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { percentile } from '../support.ts';
import { type BenchServer, memoryOf, startServer, streamUpload } from './server.ts';

// 20 concurrent 5 MB PDF uploads against the running service (child process, API + worker),
// while GET /documents/{id} is requested continuously. Targets: no upload fails; p99 of the
// concurrent GETs < 50 ms. Then (unless DOC_BENCH_WAIT_PROCESSED=0) it waits until the in-process
// worker has processed every upload and rendered its thumbnail: the peak RSS after that is the
// whole run's, where the one at the end of the uploads misses most of the processing.
//   DOC_BENCH_UPLOADS=20 DOC_BENCH_UPLOAD_MB=5 DOC_BENCH_READERS=4 node bench/documents/concurrent-uploads.bench.ts

const MiB = 1024 * 1024;
const CLIENTS = path.join(path.dirname(fileURLToPath(import.meta.url)), 'upload-clients.ts');

/** Runs the uploads in a child process (see upload-clients.ts). */
function uploadFromChild(
  base: string,
  apiKey: string,
  count: number,
  bytes: number,
): Promise<{ status: number; ms: number; id: string | null }[]> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [CLIENTS, base, apiKey, String(count), String(bytes)],
      { maxBuffer: 1024 * 1024 },
      (error, stdout) =>
        error ? reject(error) : resolve(JSON.parse(stdout) as { status: number; ms: number; id: string | null }[]),
    );
  });
}

/** Whether the worker is done with a document: processed (or failed) and its thumbnail stored. */
async function settled(server: BenchServer, id: string, agent: http.Agent): Promise<boolean> {
  const headers = { 'x-api-key': server.apiKey };
  const doc = await fetchVia(`${server.base}/api/v1/documents/${id}`, headers, agent);
  if ((JSON.parse(doc.body) as { status: string }).status === 'processing') return false;
  // Until the thumbnail job has run, the type icon is answered with `no-store`.
  const thumbnail = await fetchVia(`${server.base}/api/v1/documents/${id}/thumbnail`, headers, agent);
  return thumbnail.cacheControl !== 'no-store';
}

function fetchVia(
  url: string,
  headers: Record<string, string>,
  agent: http.Agent,
): Promise<{ body: string; cacheControl: string | undefined }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent, headers }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d) => (body += d));
        res.on('end', () =>
          res.statusCode === 200
            ? resolve({ body, cacheControl: res.headers['cache-control'] })
            : reject(new Error(`GET ${url}: ${res.statusCode}`)),
        );
      })
      .on('error', reject);
  });
}

export interface ConcurrentUploadsResult {
  uploads: number;
  uploadMiB: number;
  failed: number;
  uploadsWallMs: number;
  uploadP50Ms: number;
  uploadMaxMs: number;
  reads: number;
  readP50Ms: number;
  readP99Ms: number;
  readMaxMs: number;
  serverPeakRssMiB: number;
  /** From the end of the uploads until every upload is processed and has its thumbnail (null: not waited for). */
  processingMs: number | null;
  /** VmHWM once all that is done: the run's peak. */
  processedPeakRssMiB: number | null;
}

export async function run(
  options: { uploads?: number; uploadMiB?: number; readers?: number } = {},
): Promise<ConcurrentUploadsResult> {
  const uploads = options.uploads ?? Number(process.env['DOC_BENCH_UPLOADS'] ?? 20);
  const uploadMiB = options.uploadMiB ?? Number(process.env['DOC_BENCH_UPLOAD_MB'] ?? 5);
  const readers = options.readers ?? Number(process.env['DOC_BENCH_READERS'] ?? 4);
  const server = await startServer(
    process.env['DOC_BENCH_SERVER_ENV'] ? JSON.parse(process.env['DOC_BENCH_SERVER_ENV']) : {},
  );
  const agent = new http.Agent({ keepAlive: true, maxSockets: uploads + readers });
  try {
    const first = await streamUpload(server, 64 * 1024, 'probe.pdf', agent);
    if (first.status !== 201) throw new Error(`probe upload failed: ${first.status} ${first.body}`);
    const probeId = (JSON.parse(first.body) as { id: string }).id;
    const getOnce = () =>
      new Promise<number>((resolve, reject) => {
        const started = performance.now();
        http
          .get(
            `${server.base}/api/v1/documents/${probeId}`,
            { agent, headers: { 'x-api-key': server.apiKey } },
            (res) => {
              res.resume();
              res.on('end', () =>
                res.statusCode === 200
                  ? resolve(performance.now() - started)
                  : reject(new Error(`GET ${res.statusCode}`)),
              );
            },
          )
          .on('error', reject);
      });
    // Warm the read path.
    for (let i = 0; i < 20; i++) await getOnce();

    let uploading = true;
    const latencies: number[] = [];
    const readLoops = Array.from({ length: readers }, async () => {
      while (uploading) latencies.push(await getOnce());
    });
    const started = performance.now();
    const results = await uploadFromChild(server.base, server.apiKey, uploads, uploadMiB * MiB);
    const wall = performance.now() - started;
    uploading = false;
    await Promise.all(readLoops);
    const times = results.map((r) => r.ms);
    const round = (n: number) => Number(n.toFixed(1));
    // VmHWM: the highest resident size since start (issue 10 item 5: < 400 MB for 20 x 50 MB).
    const uploadedPeak = memoryOf(server.child.pid!).hwm;
    let processingMs: number | null = null;
    let processedPeak: number | null = null;
    if (process.env['DOC_BENCH_WAIT_PROCESSED'] !== '0') {
      const waitStarted = performance.now();
      let pending = results.flatMap((r) => (r.id ? [r.id] : []));
      while (pending.length > 0) {
        const done = await Promise.all(pending.map((id) => settled(server, id, agent)));
        pending = pending.filter((_, i) => !done[i]);
        if (pending.length > 0) await new Promise((r) => setTimeout(r, 250));
      }
      processingMs = round(performance.now() - waitStarted);
      processedPeak = memoryOf(server.child.pid!).hwm;
    }
    return {
      uploads,
      uploadMiB,
      failed: results.filter((r) => r.status !== 201).length,
      uploadsWallMs: round(wall),
      uploadP50Ms: round(percentile(times, 50)),
      uploadMaxMs: round(Math.max(...times)),
      reads: latencies.length,
      readP50Ms: round(percentile(latencies, 50)),
      readP99Ms: round(percentile(latencies, 99)),
      readMaxMs: round(Math.max(...latencies)),
      serverPeakRssMiB: round(uploadedPeak / MiB),
      processingMs,
      processedPeakRssMiB: processedPeak === null ? null : round(processedPeak / MiB),
    };
  } finally {
    agent.destroy();
    await server.close();
  }
}

if (import.meta.main) console.log(JSON.stringify(await run(), null, 2));
