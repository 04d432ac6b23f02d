import { createHash } from 'node:crypto';
import type { DocuVault } from '@docuvault/sdk';
import type { FolderPaths } from '../folders.ts';
import { sha256File, type UploadManifest } from './manifest.ts';
import type { UploadProgress } from './progress.ts';
import type { LocalFile } from './walk.ts';

/** How a run uploads: where to, how many at once, and the upload fields. */
export interface UploadPlan {
  target: string;
  concurrency: number;
  enableAi: boolean;
  tags: string[];
}

/** What happened to one file. */
export interface FileOutcome {
  path: string;
  outcome: 'uploaded' | 'skipped' | 'failed';
  document_id?: string;
  error?: { code: string; message: string };
}

type RemoteIndex = Map<string, { id: string; size: number }[]>;

/**
 * Uploads files with `concurrency` at a time. A file is skipped when the service already holds it
 * in its folder: known from the manifest (unchanged file, document still listed), or found by
 * name and size and confirmed by the content hash (the download ETag). So a re-run after a kill
 * sends nothing that arrived, even a file whose answer was lost; and each upload carries an
 * Idempotency-Key derived from folder, name and content, so a request repeated while the first
 * is still being stored is answered once rather than stored twice.
 */
export async function runUpload(
  client: DocuVault,
  files: LocalFile[],
  deps: { folders: FolderPaths; manifest: UploadManifest; progress: UploadProgress },
  plan: UploadPlan,
): Promise<FileOutcome[]> {
  const indexes = new Map<string | null, Promise<RemoteIndex>>();
  const indexOf = (folderId: string | null) => {
    let index = indexes.get(folderId);
    if (!index) {
      index = remoteIndex(client, folderId);
      indexes.set(folderId, index);
    }
    return index;
  };
  const outcomes: FileOutcome[] = [];
  let next = 0;
  const worker = async () => {
    while (next < files.length) {
      const file = files[next++] as LocalFile;
      const outcome = await uploadOne(client, file, { ...deps, indexOf }, plan).catch((error: unknown) =>
        failed(file, error),
      );
      deps.progress.finish(file.path, file.size, outcome.outcome);
      outcomes.push(outcome);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, plan.concurrency) }, worker));
  return outcomes;
}

async function uploadOne(
  client: DocuVault,
  file: LocalFile,
  deps: {
    folders: FolderPaths;
    manifest: UploadManifest;
    progress: UploadProgress;
    indexOf: (id: string | null) => Promise<RemoteIndex>;
  },
  plan: UploadPlan,
): Promise<FileOutcome> {
  const folderId = await deps.folders.ensure(`${plan.target}/${file.folder}`);
  const remote = (await deps.indexOf(folderId)).get(file.name.toLowerCase()) ?? [];
  const known = deps.manifest.lookup(file.path, file.size, file.mtimeMs);
  if (known && known.folder_id === folderId && remote.some((d) => d.id === known.document_id))
    return { path: file.path, outcome: 'skipped', document_id: known.document_id };

  const sha256 = known?.sha256 ?? (await sha256File(file.path));
  for (const candidate of remote.filter((d) => d.size === file.size)) {
    if ((await client.documents.sha256(candidate.id)) === sha256) {
      await deps.manifest.record({
        path: file.path,
        size: file.size,
        mtimeMs: file.mtimeMs,
        sha256,
        document_id: candidate.id,
        folder_id: folderId,
      });
      return { path: file.path, outcome: 'skipped', document_id: candidate.id };
    }
  }
  const idempotencyKey = createHash('sha256')
    .update(`${folderId ?? ''}\n${file.folder}/${file.name}\n${sha256}`)
    .digest('hex');
  const answer = await client.documents.upload(file.path, {
    ...(folderId ? { folderId } : {}),
    enableAi: plan.enableAi,
    tags: plan.tags,
    idempotencyKey,
    onProgress: (p) => deps.progress.sending(file.path, p.loaded),
  });
  await deps.manifest.record({
    path: file.path,
    size: file.size,
    mtimeMs: file.mtimeMs,
    sha256,
    document_id: answer.id,
    folder_id: folderId,
  });
  return { path: file.path, outcome: 'uploaded', document_id: answer.id };
}

async function remoteIndex(client: DocuVault, folderId: string | null): Promise<RemoteIndex> {
  const index: RemoteIndex = new Map();
  for await (const doc of client.paginate('listDocuments', {
    query: { folder_id: folderId ?? 'root', page_size: 100 },
  })) {
    const key = doc.filename.toLowerCase();
    index.set(key, [...(index.get(key) ?? []), { id: doc.id, size: doc.file_size }]);
  }
  return index;
}

function failed(file: LocalFile, error: unknown): FileOutcome {
  const code = error && typeof error === 'object' && 'code' in error ? String(error.code) : 'ERROR';
  return {
    path: file.path,
    outcome: 'failed',
    error: { code, message: error instanceof Error ? error.message : String(error) },
  };
}
