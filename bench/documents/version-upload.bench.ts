import { execFileSync } from 'node:child_process';
import os from 'node:os';
import { median } from '../support.ts';
import { type BenchServer, memoryOf, startServer, streamUpload } from './server.ts';

// Issue 32: "a version upload of a 500 MB file at the throughput of a first upload". One service
// (child process, SQLite, local blob store, as `npm start` runs it: --max-semi-space-size=4), the
// same generated 500 MB PDF size for both, each file salted so none is a duplicate of another (an
// upload identical to the current version answers without a new version). Each round times a
// first upload (`POST /documents/upload`) and a version upload (`POST /documents/{id}/versions`
// of a document made before the rounds), alternating which goes first; between uploads the
// processing of the previous file is awaited and dirty pages are synced, so neither pays for the
// other. Throughput is median MiB/s; the ratio is median(version) / median(first). RSS is the
// server's VmRSS sampled every 20 ms during each kind of upload (max), and its VmHWM at the end.
//   VERSION_BENCH_MB=500 VERSION_BENCH_ROUNDS=5 node bench/documents/version-upload.bench.ts

const MiB = 1024 * 1024;

async function settled(server: BenchServer, id: string): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    const res = await fetch(`${server.base}/api/v1/documents/${id}`, { headers: { 'x-api-key': server.apiKey } });
    const body = (await res.json()) as { status?: string };
    if (body.status !== 'pending' && body.status !== 'processing') break;
    await new Promise((r) => setTimeout(r, 250));
  }
  execFileSync('sync');
}

export async function run() {
  const sizeMiB = Number(process.env['VERSION_BENCH_MB'] ?? 500);
  const rounds = Number(process.env['VERSION_BENCH_ROUNDS'] ?? 5);
  const size = sizeMiB * MiB;
  const server = await startServer({ NODE_OPTIONS: '--max-semi-space-size=4' });
  const pid = server.child.pid!;
  try {
    const base = await streamUpload(server, 1 * MiB, 'versioned.pdf', undefined, { salt: 'base' });
    if (base.status !== 201) throw new Error(`upload failed: ${base.status} ${base.body}`);
    const documentId = (JSON.parse(base.body) as { id: string }).id;
    await settled(server, documentId);
    const idleRssMiB = Math.round(memoryOf(pid).rss / MiB);
    const first: number[] = [];
    const version: number[] = [];
    const rss = { first: 0, version: 0 };
    const timed = async (kind: 'first' | 'version', round: number) => {
      let max = 0;
      const sampler = setInterval(() => {
        max = Math.max(max, memoryOf(pid).rss);
      }, 20);
      try {
        const up = await streamUpload(
          server,
          size,
          kind === 'first' ? `first-${round}.pdf` : 'versioned.pdf',
          undefined,
          kind === 'first'
            ? { salt: `first-${round}` }
            : { path: `/api/v1/documents/${documentId}/versions`, salt: `version-${round}` },
        );
        if (up.status !== 201) throw new Error(`${kind} upload failed: ${up.status} ${up.body}`);
        (kind === 'first' ? first : version).push(up.ms);
        rss[kind] = Math.max(rss[kind], max);
        await settled(server, kind === 'first' ? (JSON.parse(up.body) as { id: string }).id : documentId);
      } finally {
        clearInterval(sampler);
      }
    };
    for (let round = 0; round < rounds; round++) {
      const order: ('first' | 'version')[] = round % 2 === 0 ? ['first', 'version'] : ['version', 'first'];
      for (const kind of order) await timed(kind, round);
    }
    const mibs = (ms: number) => Math.round(sizeMiB / (ms / 1000));
    return {
      date: new Date().toISOString(),
      loadavg: os.loadavg().map((l) => Number(l.toFixed(2))),
      sizeMiB,
      rounds,
      firstUploadMiBs: mibs(median(first)),
      versionUploadMiBs: mibs(median(version)),
      ratioVersionToFirst: Number((median(first) / median(version)).toFixed(2)),
      perRoundMs: { first: first.map(Math.round), version: version.map(Math.round) },
      serverIdleRssMiB: idleRssMiB,
      serverRssDuringFirstUploadsMaxMiB: Math.round(rss.first / MiB),
      serverRssDuringVersionUploadsMaxMiB: Math.round(rss.version / MiB),
      serverPeakRssMiB: Math.round(memoryOf(pid).hwm / MiB),
    };
  } finally {
    await server.close();
  }
}

if (import.meta.main) console.log(JSON.stringify(await run(), null, 2));
