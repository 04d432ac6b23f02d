import { createHash } from 'node:crypto';
import { once } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Database } from '../../../db/database.ts';
import { getOrCreateServerSecret } from '../../../db/server-secrets.ts';
import { ARCHIVE_RESOURCES, NOT_PORTABLE } from '../../../db/tenant-archive/resources.ts';
import {
  apiKeysOf,
  encodeValue,
  latestMigration,
  tenantArchiveFiles,
  tenantArchiveVersionFiles,
  tenantRow,
  tenantRows,
} from '../../../db/tenant-archive/rows.ts';
import type { BlobStore, StoredBlob } from '../../../providers/blobs/blob-store.ts';
import {
  ARCHIVE_FORMAT,
  ARCHIVE_VERSION,
  fileEntry,
  type Manifest,
  type ManifestEntry,
  rowsEntry,
  SIGNING_SECRET_NAME,
  signManifest,
  thumbnailEntry,
  versionEntry,
} from './archive-format.ts';
import { END_OF_ARCHIVE, fileHeader, padding } from './tar-header.ts';

function changedWhileExported(entry: ManifestEntry, size: number, sha256: string | null): Error {
  return new Error(
    `${entry.name} changed while it was exported (stored ${sha256 === null ? `more than ${size - 1}` : size} bytes${sha256 === null ? '' : `, sha256 ${sha256}`}; expected ${entry.size}, ${entry.sha256})`,
  );
}

/**
 * Reads `file` through `buffer`, handing each filled part to `take` and waiting for it before the
 * next read: the staged NDJSON of a large tenant (tens of MB of passages and embeddings) passes
 * through one buffer, where a read stream allocated a new 1 MB buffer per chunk that a worker's
 * small young generation collected late (export RSS, docs/benchmarks.md).
 */
async function readInto(buffer: Buffer, file: string, take: (chunk: Uint8Array) => Promise<void>): Promise<void> {
  const handle = await fs.promises.open(file, 'r');
  try {
    for (;;) {
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, null);
      if (bytesRead === 0) return;
      await take(buffer.subarray(0, bytesRead));
    }
  } finally {
    await handle.close();
  }
}

/**
 * Rows read per query while staging the NDJSON. A batch (passages with their embeddings: ~2 KB of
 * JSON a row) lives until its text is written, and one that outlives two young-generation
 * collections is promoted and stays as old-generation garbage until V8's next full collection:
 * 100 rows keep a batch's objects well under the young generation. On SQLite each page continues
 * along the key's index (tenantRows), so small pages cost little; on PostgreSQL, not measured with
 * small pages, the 500 of before.
 */
const ROWS_PER_READ = { sqlite: 100, postgres: 500 } as const;

export interface ExportProgress {
  entriesTotal: number;
  entriesDone: number;
  bytesTotal: number;
  bytesDone: number;
  phase: 'rows' | 'files';
}

interface StagedEntry extends ManifestEntry {
  /** Where the bytes come from while packing. */
  source: { file: string } | { blob: string } | { bytes: Buffer };
}

/**
 * Writes a tenant's archive (archive-format.ts) into the blob store under `key`: the rows first
 * into NDJSON files in a temporary folder (each hashed as it is written, so the manifest can come
 * first), then one tar streamed to the store. Memory holds a batch of rows and the list of
 * documents' file keys, never a file.
 */
export async function writeTenantArchive(
  deps: { database: Database; blobs: BlobStore; now: () => number },
  tenantId: string,
  key: string,
  progress: (p: ExportProgress) => Promise<void>,
): Promise<StoredBlob & { manifest: Manifest }> {
  const { database, blobs } = deps;
  const db = database.db;
  const tenant = await tenantRow(db, tenantId);
  if (!tenant) throw new Error(`tenant ${tenantId} does not exist`);
  const dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'tenant-export-'));
  try {
    const staged: StagedEntry[] = [];
    const tenantJson = Buffer.from(
      `${JSON.stringify({ id: tenant.id, name: tenant.name, subdomain: tenant.subdomain, tier: tenant.tier, status: tenant.status, cors_origins: tenant.cors_origins, settings: tenant.settings, created_at: tenant.created_at })}\n`,
    );
    staged.push({
      name: 'tenant.json',
      size: tenantJson.length,
      sha256: createHash('sha256').update(tenantJson).digest('hex'),
      source: { bytes: tenantJson },
    });

    for (const resource of ARCHIVE_RESOURCES) {
      const file = path.join(dir, rowsEntry(resource.table));
      const out = fs.createWriteStream(file);
      const hash = createHash('sha256');
      let size = 0;
      let rows = 0;
      const omit = new Set(resource.omit ?? []);
      for await (const batch of tenantRows(db, database.dialect, resource, tenantId, ROWS_PER_READ[database.dialect])) {
        let text = '';
        for (const row of batch) {
          const line: Record<string, unknown> = {};
          for (const [column, value] of Object.entries(row)) if (!omit.has(column)) line[column] = encodeValue(value);
          text += `${JSON.stringify(line)}\n`;
        }
        const bytes = Buffer.from(text);
        hash.update(bytes);
        size += bytes.length;
        rows += batch.length;
        if (!out.write(bytes)) await once(out, 'drain');
      }
      out.end();
      await once(out, 'finish');
      staged.push({ name: rowsEntry(resource.table), size, sha256: hash.digest('hex'), rows, source: { file } });
      await progress({
        phase: 'rows',
        entriesTotal: ARCHIVE_RESOURCES.length + 1,
        entriesDone: staged.length,
        bytesTotal: 0,
        bytesDone: 0,
      });
    }

    const files = await tenantArchiveFiles(db, tenantId);
    for (const f of files)
      staged.push({ name: fileEntry(f.id), size: f.fileSize, sha256: f.sha256, source: { blob: f.storageKey } });
    // Earlier versions: the current one is the document's file above, never stored twice.
    const versions = await tenantArchiveVersionFiles(db, tenantId);
    for (const v of versions)
      staged.push({ name: versionEntry(v.id), size: v.fileSize, sha256: v.sha256, source: { blob: v.storageKey } });
    for (const f of files) {
      if (!f.thumbnailKey) continue;
      // Thumbnails are small and their hash is not recorded: read once to hash.
      const chunks: Buffer[] = [];
      try {
        for await (const chunk of await blobs.get(f.thumbnailKey)) chunks.push(Buffer.from(chunk as Uint8Array));
      } catch {
        continue; // not rendered after all: the importing service renders it again
      }
      const bytes = Buffer.concat(chunks);
      staged.push({
        name: thumbnailEntry(f.id),
        size: bytes.length,
        sha256: createHash('sha256').update(bytes).digest('hex'),
        source: { bytes },
      });
    }

    const fileBytes = files.reduce((sum, f) => sum + f.fileSize, 0) + versions.reduce((sum, v) => sum + v.fileSize, 0);
    const manifest: Manifest = {
      format: ARCHIVE_FORMAT,
      version: ARCHIVE_VERSION,
      created_at: new Date(deps.now()).toISOString(),
      schema: await latestMigration(db),
      tenant: {
        id: String(tenant.id),
        name: String(tenant.name),
        subdomain: String(tenant.subdomain),
        tier: String(tenant.tier),
      },
      totals: { documents: files.length, file_bytes: fileBytes, entries: staged.length + 1, versions: versions.length },
      entries: staged.map(({ source: _source, ...e }) => e),
      not_portable: { ...NOT_PORTABLE },
      api_keys: await apiKeysOf(db, tenantId),
      signature: '',
    };
    manifest.signature = signManifest(manifest, await getOrCreateServerSecret(db, SIGNING_SECRET_NAME, deps.now()));
    const manifestBytes = Buffer.from(`${JSON.stringify(manifest, null, 1)}\n`);

    const bytesTotal = manifestBytes.length + staged.reduce((s, e) => s + e.size, 0);
    let bytesDone = 0;
    let entriesDone = 0;
    let lastReport = 0;
    const report = async (force = false) => {
      const t = Date.now();
      if (!force && t - lastReport < 1_000) return;
      lastReport = t;
      await progress({ phase: 'files', entriesTotal: staged.length + 1, entriesDone, bytesTotal, bytesDone });
    };
    const manifestEntry: StagedEntry = {
      name: 'manifest.json',
      size: manifestBytes.length,
      sha256: createHash('sha256').update(manifestBytes).digest('hex'),
      source: { bytes: manifestBytes },
    };
    // One buffer for every staged rows file (ChunkProducer: reusable once `write` resolved).
    const fileBuffer = Buffer.allocUnsafe(1024 * 1024);
    // The tar is written straight from the blob store's reused buffers into the archive's file
    // (getChunks → putChunks): no stream per entry, no allocation per chunk.
    const stored = await blobs.putChunks(
      key,
      async (write) => {
        for (const entry of [manifestEntry, ...staged]) {
          await write(fileHeader(entry.name, entry.size));
          const hash = createHash('sha256');
          let size = 0;
          const take = async (chunk: Uint8Array) => {
            size += chunk.byteLength;
            // Never more bytes than the header announced: the archive stays a valid tar up to the failure.
            if (size > entry.size) throw changedWhileExported(entry, size, null);
            hash.update(chunk);
            bytesDone += chunk.byteLength;
            await write(chunk);
          };
          const src = entry.source;
          if ('bytes' in src) await take(src.bytes);
          else if ('file' in src) await readInto(fileBuffer, src.file, take);
          else await blobs.getChunks(src.blob, take);
          const sha256 = hash.digest('hex');
          if (size !== entry.size || sha256 !== entry.sha256) throw changedWhileExported(entry, size, sha256);
          await write(padding(entry.size));
          entriesDone++;
          await report();
        }
        await write(END_OF_ARCHIVE);
      },
      { contentType: 'application/x-tar' },
    );
    await report(true);
    return { ...stored, manifest };
  } finally {
    await fs.promises.rm(dir, { recursive: true, force: true });
  }
}
