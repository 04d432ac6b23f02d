import { DatabaseSync } from 'node:sqlite';
import path from 'node:path';
import { startServer } from '../documents/server.ts';
import { percentile } from '../support.ts';
import { corpusFile } from './corpus.ts';

// Sustained ingest with the local AI provider: N mixed documents (text PDF, DOCX, TXT of ~5 pages)
// uploaded with 4 clients against `npm start` (API + worker, SQLite), timed from the first upload
// to the last `completed`, while GET /documents/{id} is requested continuously.
// Targets (issue 11): >= 10 documents/s; p99 of the concurrent GETs < 50 ms.
//   PROC_BENCH_DOCS=60 node bench/run.ts processing/ingest

const LEASE_MS = 60_000;

export async function run(): Promise<Record<string, unknown>> {
  const total = Number(process.env['PROC_BENCH_DOCS'] ?? 60);
  const server = await startServer({ JOB_LEASE_MS: String(LEASE_MS) });
  const headers = { 'x-api-key': server.apiKey };
  try {
    const files = await Promise.all(Array.from({ length: total }, (_, i) => corpusFile(i)));
    const upload = async (f: { filename: string; bytes: Buffer }) => {
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(f.bytes)]), f.filename);
      const res = await fetch(`${server.base}/api/v1/documents/upload`, { method: 'POST', headers, body: form });
      if (res.status !== 201) throw new Error(`upload ${f.filename}: ${res.status} ${await res.text()}`);
      return ((await res.json()) as { id: string }).id;
    };
    const probe = await upload({ filename: 'probe.txt', bytes: Buffer.from('probe') });

    let reading = true;
    const reads: number[] = [];
    const reader = (async () => {
      while (reading) {
        const t0 = performance.now();
        const res = await fetch(`${server.base}/api/v1/documents/${probe}`, { headers });
        await res.arrayBuffer();
        reads.push(performance.now() - t0);
        await new Promise((r) => setTimeout(r, 10));
      }
    })();

    const started = performance.now();
    const queue = [...files];
    const ids: string[] = [];
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        for (let f = queue.shift(); f; f = queue.shift()) ids.push(await upload(f));
      }),
    );
    const uploadedMs = performance.now() - started;
    for (;;) {
      const res = await fetch(`${server.base}/api/v1/documents?limit=100&page=1&sort=created_at`, { headers });
      const body = (await res.json()) as { data: { id: string; status: string; ai_status: string }[]; total: number };
      const pending = body.data.filter(
        (d) => d.status === 'processing' || d.ai_status === 'queued' || d.ai_status === 'processing',
      );
      if (pending.length === 0 && body.total >= total + 1) break;
      if (performance.now() - started > 600_000) throw new Error('ingest did not finish in 10 minutes');
      await new Promise((r) => setTimeout(r, 100));
    }
    const wallMs = performance.now() - started;
    reading = false;
    await reader;

    // Where the time goes: mean run time of each pipeline step, from the worker's histogram.
    const metrics = await (await fetch(`${server.base}/metrics`)).text();
    const stages: Record<string, { runs: number; meanMs: number }> = {};
    for (const kind of ['processing.extract', 'processing.enrich', 'processing.index', 'documents.thumbnail']) {
      const sum = Number(
        new RegExp(`job_run_duration_seconds_sum\\{kind="${kind}",outcome="completed"\\} ([0-9.e+-]+)`).exec(
          metrics,
        )?.[1] ?? 0,
      );
      const count = Number(
        new RegExp(`job_run_duration_seconds_count\\{kind="${kind}",outcome="completed"\\} ([0-9]+)`).exec(
          metrics,
        )?.[1] ?? 0,
      );
      stages[kind] = { runs: count, meanMs: count ? Math.round((sum / count) * 1000) : 0 };
    }
    const db = new DatabaseSync(path.join(server.dataDir, 'service.db'), { readOnly: true });
    const failed = Number(
      (db.prepare(`select count(*) as n from documents where status = 'failed'`).get() as { n: number }).n,
    );
    db.close();
    return {
      documents: total,
      failed,
      uploadPhaseMs: Math.round(uploadedMs),
      wallMs: Math.round(wallMs),
      documentsPerSecond: Number((total / (wallMs / 1000)).toFixed(2)),
      concurrentGets: reads.length,
      getP50Ms: Number(percentile(reads, 50).toFixed(1)),
      getP99Ms: Number(percentile(reads, 99).toFixed(1)),
      stages,
    };
  } finally {
    await server.close();
  }
}
