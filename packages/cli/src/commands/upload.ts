import { parseArgs } from 'node:util';
import { clientFor, configPath } from '../config.ts';
import { FolderPaths } from '../folders.ts';
import { bytes, EXIT, type Io, output, UsageError } from '../io.ts';
import { UploadManifest } from '../upload/manifest.ts';
import { UploadProgress } from '../upload/progress.ts';
import { runUpload } from '../upload/run.ts';
import { walk } from '../upload/walk.ts';

/** upload <paths...>: files and folder trees, mirrored under --to, resumable, with a progress bar. */
export async function uploadCommand(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      to: { type: 'string', default: '/' },
      concurrency: { type: 'string', short: 'c', default: '4' },
      'no-ai': { type: 'boolean' },
      tags: { type: 'string' },
      progress: { type: 'boolean' },
      'no-progress': { type: 'boolean' },
      json: { type: 'boolean' },
    },
  });
  if (positionals.length === 0) throw new UsageError('upload needs at least one file or folder');
  const concurrency = Number(values.concurrency);
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 64)
    throw new UsageError('--concurrency must be an integer from 1 to 64');
  const files = await walk(positionals).catch((error: NodeJS.ErrnoException) => {
    throw new UsageError(error.code === 'ENOENT' ? `no such file or folder: ${error.path}` : error.message);
  });
  const client = await clientFor(io);
  const live = !values['no-progress'] && !values.json && (values.progress || io.stderr.isTTY === true);
  const progress = new UploadProgress(
    files.length,
    files.reduce((sum, f) => sum + f.size, 0),
    io.stderr,
    live,
  );
  const deps = {
    folders: await FolderPaths.load(client),
    manifest: await UploadManifest.open(configPath(io.env), client.baseUrl, values.to),
    progress,
  };
  const plan = {
    target: values.to,
    concurrency,
    enableAi: !values['no-ai'],
    tags: values.tags
      ? values.tags
          .split(',')
          .map((t) => t.trim())
          .filter(Boolean)
      : [],
  };
  const outcomes = await runUpload(client, files, deps, plan).finally(() => progress.stop());
  const failures = outcomes.filter((o) => o.outcome === 'failed');
  const summary = {
    uploaded: progress.uploaded,
    skipped: progress.skipped,
    failed: progress.failed,
    bytes: progress.totalBytes,
    seconds: progress.elapsedSeconds,
    files: outcomes,
  };
  output(io, values.json ?? false, summary, () =>
    [
      ...failures.map((f) => `failed: ${f.path}: ${f.error?.message} (${f.error?.code})`),
      `${progress.uploaded} uploaded, ${progress.skipped} already there, ${progress.failed} failed (${bytes(progress.totalBytes)} in ${progress.elapsedSeconds.toFixed(1)} s)`,
    ].join('\n'),
  );
  return failures.length ? EXIT.failure : EXIT.ok;
}
