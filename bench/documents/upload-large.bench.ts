import { execFileSync } from 'node:child_process';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { memoryOf, plainCopy, startServer, streamUpload } from './server.ts';

// One 500 MB PDF upload through the running service (child process, loopback HTTP, multipart
// streamed into the local blob store with SHA-256 and fsync), against a plain stream-to-disk copy
// of the same bytes in the same run (with and without fsync). Targets: server peak RSS < 200 MB;
// throughput >= 50 % of the plain copy. Run twice: with Node's default young generation, and with
// `--max-semi-space-size=4`, as `npm start` runs it (a smaller young generation keeps RSS flat).
//   DOC_BENCH_MB=500 DOC_BENCH_ROUNDS=3 node bench/documents/upload-large.bench.ts

const MiB = 1024 * 1024;

function settle(): void {
  execFileSync('sync');
}

export interface LargeUploadVariant {
  nodeOptions: string;
  uploadMiBs: number;
  plainCopyMiBs: number;
  plainCopyFsyncMiBs: number;
  ratioVsPlain: number;
  ratioVsPlainFsync: number;
  /** VmHWM of the server after the uploads (includes start-up). */
  serverPeakRssMiB: number;
  /** VmRSS of the idle server before the first upload, and the highest sampled during uploads. */
  serverIdleRssMiB: number;
  serverRssDuringUploadsMaxMiB: number;
}

async function variant(sizeMiB: number, rounds: number, nodeOptions: string): Promise<LargeUploadVariant> {
  const size = sizeMiB * MiB;
  const server = await startServer(nodeOptions ? { NODE_OPTIONS: nodeOptions } : {});
  const pid = server.child.pid!;
  try {
    const idle = memoryOf(pid);
    let sampledMax = idle.rss;
    const sampler = setInterval(() => {
      sampledMax = Math.max(sampledMax, memoryOf(pid).rss);
    }, 20);
    const uploads: number[] = [];
    const copies: number[] = [];
    const syncedCopies: number[] = [];
    try {
      for (let i = 0; i < rounds; i++) {
        const copyFile = path.join(server.dataDir, `plain-copy-${i}`);
        // Each timed run starts with no dirty pages of the previous one still being written back.
        settle();
        copies.push(await plainCopy(size, copyFile));
        await fsp.rm(copyFile);
        settle();
        syncedCopies.push(await plainCopy(size, copyFile, { fsync: true }));
        await fsp.rm(copyFile);
        settle();
        const up = await streamUpload(server, size, `large-${i}.pdf`);
        if (up.status !== 201) throw new Error(`upload failed: ${up.status} ${up.body}`);
        uploads.push(up.ms);
      }
    } finally {
      clearInterval(sampler);
    }
    const best = (ms: number[]) => Math.min(...ms);
    const mibs = (ms: number) => Math.round(sizeMiB / (ms / 1000));
    return {
      nodeOptions: nodeOptions || '(default)',
      uploadMiBs: mibs(best(uploads)),
      plainCopyMiBs: mibs(best(copies)),
      plainCopyFsyncMiBs: mibs(best(syncedCopies)),
      ratioVsPlain: Number((best(copies) / best(uploads)).toFixed(2)),
      ratioVsPlainFsync: Number((best(syncedCopies) / best(uploads)).toFixed(2)),
      serverPeakRssMiB: Math.round(memoryOf(pid).hwm / MiB),
      serverIdleRssMiB: Math.round(idle.rss / MiB),
      serverRssDuringUploadsMaxMiB: Math.round(sampledMax / MiB),
    };
  } finally {
    await server.close();
  }
}

export async function run(options: { sizeMiB?: number; rounds?: number } = {}) {
  const sizeMiB = options.sizeMiB ?? Number(process.env['DOC_BENCH_MB'] ?? 500);
  const rounds = options.rounds ?? Number(process.env['DOC_BENCH_ROUNDS'] ?? 3);
  return {
    sizeMiB,
    rounds,
    // The second variant is how `npm start` runs the service (package.json).
    variants: [await variant(sizeMiB, rounds, ''), await variant(sizeMiB, rounds, '--max-semi-space-size=4')],
  };
}

if (import.meta.main) console.log(JSON.stringify(await run(), null, 2));
