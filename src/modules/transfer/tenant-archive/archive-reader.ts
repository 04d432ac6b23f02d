import { createHash } from 'node:crypto';
import { once } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import * as tar from 'tar-stream';
import type { Database } from '../../../db/database.ts';
import { getOrCreateServerSecret } from '../../../db/server-secrets.ts';
import { ARCHIVE_RESOURCES, type ArchiveResource, idColumn } from '../../../db/tenant-archive/resources.ts';
import {
  decodeValue,
  insertRows,
  insertTenant,
  tableColumns,
  takenIds,
  tenantTaken,
} from '../../../db/tenant-archive/rows.ts';
import { TIER_LIMITS, TIERS, type Tier } from '../../../domain/tiers.ts';
import { AppError, errors } from '../../../lib/errors.ts';
import { newId } from '../../../lib/ids.ts';
import { BlobChecksumMismatchError, type BlobStore, SyncBatch } from '../../../providers/blobs/blob-store.ts';
import {
  fileEntry,
  type Manifest,
  type ManifestEntry,
  manifestProblem,
  manifestSignedBy,
  rowsEntry,
  SIGNING_SECRET_NAME,
  thumbnailEntry,
  versionEntry,
} from './archive-format.ts';
import { ImportJournal } from './import-journal.ts';
import { BATCH_ROWS, ndjsonBatches, ndjsonRows } from './ndjson-batches.ts';

export interface ImportOptions {
  /** The new tenant's subdomain (default: the archive's); 409 when taken. */
  subdomain?: string | undefined;
  name?: string | undefined;
  /** The new tenant's tier (default: the archive's); its storage must hold the archive's files. */
  tier?: Tier | undefined;
}

export interface ImportReport {
  tenant: { id: string; name: string; subdomain: string; tier: string };
  /** Rows per resource, and `files` / `thumbnails` stored. */
  imported: Record<string, number>;
  /** What the archive did not carry or this service did not take, and why. */
  not_imported: Record<string, string>;
  /** Ids already used on this service, given new ones (references follow), per resource. */
  remapped: Record<string, number>;
  /** `kept` when the archive was signed by this service; otherwise every user must reset their password. */
  passwords: 'kept' | 'reset';
  warnings: string[];
}

const UUID_IN_TEXT = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
const MAX_MANIFEST_BYTES = 64 * 1024 * 1024;

const damaged = (entry: string, reason: string) => errors.archiveDamaged(entry, reason);

/** Reads a stream to its end into one buffer, refusing more than `limit` bytes. */
async function readSmall(stream: AsyncIterable<Buffer>, limit: number, entry: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    size += chunk.length;
    if (size > limit) throw damaged(entry, `larger than ${limit} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** Folders with every parent before its children (a parent missing from the archive becomes the root). */
function parentsFirst(rows: Record<string, unknown>[], column: string): Record<string, unknown>[] {
  const byId = new Map(rows.map((r) => [String(r.id), r]));
  const done = new Set<string>();
  const out: Record<string, unknown>[] = [];
  const visit = (r: Record<string, unknown>, depth: number) => {
    const id = String(r.id);
    if (done.has(id) || depth > 10_000) return;
    const parent = r[column] === null || r[column] === undefined ? null : byId.get(String(r[column]));
    if (parent) visit(parent, depth + 1);
    else r[column] = null;
    done.add(id);
    out.push(r);
  };
  for (const r of rows) visit(r, 0);
  return out;
}

/**
 * Imports a tenant archive (archive-format.ts) as a new tenant, in two steps so that a damaged
 * archive leaves nothing behind:
 *
 * 1. **Read and check** the stream once: the manifest first (format, the subdomain free, the
 *    tier's storage holds the files: refused before any file is read), then every entry in the
 *    manifest's order, hashed as it passes: rows are staged in a temporary folder, files go
 *    straight to their final keys in the blob store (no second copy). The first entry whose
 *    checksum or size differs, that is missing, or that the stream cuts short, refuses the import
 *    naming it; the files already stored are deleted.
 * 2. **Write** every row in one transaction (tenant, twin, then ARCHIVE_RESOURCES in order): ids
 *    already used on this service are replaced by new ones, and every occurrence of a replaced id
 *    in any text of the archive (foreign keys, JSON documents such as workflow definitions) with
 *    it, so references stay consistent. A failure rolls everything back and deletes the files.
 */
export async function importTenantArchive(
  deps: { database: Database; blobs: BlobStore; now: () => number },
  archive: Readable,
  options: ImportOptions,
): Promise<ImportReport> {
  const { database, blobs } = deps;
  const db = database.db;
  const dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'tenant-import-'));
  const storedKeys: string[] = [];
  const remap = new Map<string, string>();
  const staged = new Map<string, string>();
  const warnings: string[] = [];
  const ids = new Map<string, string>(); // document id in the archive -> id here, once documents.ndjson is read
  /** Document id in the archive -> its `storage_key` on the exporting service (which version row is the current file). */
  const sourceKeys = new Map<string, string>();
  /** Document id in the archive -> the blob key here of its current file (`files/<id>`), when it has versions. */
  const currentKeys = new Map<string, string>();
  /** Version id in the archive -> the blob key here of its bytes (`versions/<id>`), for every version but the current one. */
  const versionKeys = new Map<string, string>();
  let manifest: Manifest | null = null;
  let tenantId = '';
  let tier: Tier = 'free';
  let subdomain = '';
  let current = 'manifest.json';
  let committed = false;
  let journal: ImportJournal | null = null;
  let planned = false;
  let failure: unknown = null;
  // The files' fsyncs and renames run in the background, each folder fsynced once (SyncBatch):
  // all of it durable before the rows' transaction commits.
  const batch = new SyncBatch();
  /** The batch's sync once started (overlapping the rows' transaction). */
  let syncing: Promise<void> | null = null;
  try {
    const extract = tar.extract();
    archive.on('error', (error) => extract.destroy(error));
    // Errors reach the loop below through its iterator; once the loop has left (a refusal), the
    // rest of the body can still end the extractor ("Unexpected end of data"): never an uncaught error.
    extract.on('error', () => {});
    archive.pipe(extract as unknown as NodeJS.WritableStream);
    let expected: ManifestEntry[] = [];
    let next = 0;
    try {
      for await (const entry of extract) {
        const name = entry.header.name;
        if (manifest === null) {
          if (name !== 'manifest.json') throw damaged(name, 'the archive must start with manifest.json');
          const text = (await readSmall(entry as unknown as AsyncIterable<Buffer>, MAX_MANIFEST_BYTES, name)).toString(
            'utf8',
          );
          let parsed: unknown;
          try {
            parsed = JSON.parse(text);
          } catch {
            throw damaged(name, 'is not valid JSON');
          }
          const problem = manifestProblem(parsed);
          if (problem) throw damaged(name, problem);
          manifest = parsed as Manifest;
          expected = manifest.entries;
          // Decided before a file is read: the subdomain, the tier and its storage.
          subdomain = options.subdomain ?? manifest.tenant.subdomain;
          if (await tenantTaken(db, 'subdomain', subdomain))
            throw errors.conflict(
              `The subdomain "${subdomain}" is already taken: import under another one (field subdomain)`,
              { field: 'subdomain' },
            );
          const wanted = options.tier ?? manifest.tenant.tier;
          if (!(TIERS as readonly string[]).includes(wanted))
            throw errors.field('tier', `must be one of: ${TIERS.join(', ')}`);
          tier = wanted as Tier;
          const limit = TIER_LIMITS[tier].storageBytes;
          if (limit !== null && manifest.totals.file_bytes > limit) {
            throw errors.tierLimit(
              `The archive holds ${manifest.totals.file_bytes} bytes of files, more than the ${limit} bytes of storage of the ${tier} tier`,
              {
                tier,
                limit_bytes: limit,
                archive_bytes: manifest.totals.file_bytes,
              },
            );
          }
          tenantId =
            (await tenantTaken(db, 'id', manifest.tenant.id)) ||
            (await ImportJournal.tenantClaimed(db, manifest.tenant.id))
              ? newId(deps.now())
              : manifest.tenant.id;
          if (tenantId !== manifest.tenant.id) remap.set(manifest.tenant.id, tenantId);
          // Recorded before any file is stored: a kill from here on leaves a row the sweep cleans up after.
          journal = await ImportJournal.open(db, deps.now, {
            id: newId(deps.now()),
            tenantId,
            subdomain,
            stagingDir: dir,
          });
          current = expected[0]?.name ?? 'manifest.json';
          continue;
        }
        const want = expected[next];
        current = want?.name ?? name;
        if (!want) throw damaged(name, 'is not listed in the manifest');
        if (name !== want.name) throw damaged(want.name, `missing: found ${name} in its place`);
        next++;
        if (name.startsWith('files/') || name.startsWith('thumbnails/') || name.startsWith('versions/')) {
          const archived = name.slice(name.indexOf('/') + 1);
          let key: string;
          if (name.startsWith('versions/')) {
            const versionKey = versionKeys.get(archived);
            if (!versionKey) throw damaged(name, 'belongs to no earlier version of document_versions.ndjson');
            key = versionKey;
          } else {
            const documentId = ids.get(archived);
            if (!documentId) throw damaged(name, 'belongs to no document of documents.ndjson');
            key = name.startsWith('files/')
              ? (currentKeys.get(archived) ?? blobKey(documentId))
              : `tenants/${tenantId}/thumbnails/${documentId}`;
          }
          // Every key this import may write is committed to its journal before the first file is written.
          if (!planned) {
            await journal!.record(plannedKeys());
            planned = true;
          }
          await journal!.record([key]);
          storedKeys.push(key);
          // Straight from the archive's chunks into the store, which hashes what it writes and
          // keeps the file only if it is the manifest's bytes (one hash per byte, no stream between).
          let size = 0;
          try {
            await blobs.putChunks(
              key,
              async (write) => {
                for await (const chunk of entry as unknown as AsyncIterable<Buffer>) {
                  size += chunk.length;
                  if (size > want.size)
                    throw damaged(want.name, `is more than ${want.size} bytes, the size the manifest says (altered)`);
                  await write(chunk);
                }
              },
              // The archive stream's chunks are fresh buffers: the store may write them after moving on.
              { batch, handsOverChunks: true, expected: { sha256: want.sha256, size: want.size } },
            );
          } catch (error) {
            if (error instanceof AppError) throw error;
            if (size !== want.size)
              throw damaged(
                want.name,
                `is ${size} bytes, the manifest says ${want.size}: the archive ends inside it (truncated) or it was altered (${(error as Error).message})`,
              );
            if (error instanceof BlobChecksumMismatchError)
              throw damaged(want.name, `checksum mismatch: ${error.message}, the manifest says ${want.sha256}`);
            throw error;
          }
          staged.set(name, key);
        } else {
          const file = path.join(dir, name.replaceAll('/', '_'));
          const hash = createHash('sha256');
          let size = 0;
          const out = fs.createWriteStream(file);
          for await (const chunk of entry as unknown as AsyncIterable<Buffer>) {
            hash.update(chunk);
            size += chunk.length;
            if (!out.write(chunk)) await once(out, 'drain');
          }
          out.end();
          await once(out, 'finish');
          const sha256 = hash.digest('hex');
          if (size !== want.size)
            throw damaged(want.name, `is ${size} bytes, the manifest says ${want.size} (truncated or altered)`);
          if (sha256 !== want.sha256)
            throw damaged(want.name, `checksum mismatch: sha256 ${sha256}, the manifest says ${want.sha256}`);
          staged.set(name, file);
          if (name === rowsEntry('documents')) {
            // Files come after documents.ndjson: their keys need the documents' ids here.
            await decideIds(file, 'documents');
            for await (const row of ndjsonRows(file)) {
              ids.set(String(row.id), remap.get(String(row.id)) ?? String(row.id));
              if (typeof row.storage_key === 'string') sourceKeys.set(String(row.id), row.storage_key);
            }
          } else if (name === rowsEntry('document_versions')) {
            // Versions come before the files: each version's key here is decided now.
            await decideIds(file, 'document_versions');
            await placeVersions(file);
          } else {
            const resource = ARCHIVE_RESOURCES.find((r) => rowsEntry(r.table) === name);
            if (resource && idColumn(resource)) await decideIds(file, resource.table);
          }
        }
      }
    } catch (error) {
      archive.unpipe(extract as unknown as NodeJS.WritableStream);
      extract.destroy();
      if (error instanceof AppError) throw error;
      // tar-stream: "Unexpected end of data", an invalid header...: the stream is cut or not a tar.
      throw damaged(
        manifest === null ? 'manifest.json' : current,
        `the archive is damaged or truncated here (${(error as Error).message})`,
      );
    }
    if (manifest === null) throw damaged('manifest.json', 'the archive is empty');
    if (next < expected.length) throw damaged(expected[next]!.name, 'missing: the archive ends before it (truncated)');

    // The files' fsyncs (waiting on the disk) run while the rows go in: the transaction commits
    // only once every file is durable (writeRows awaits `durable` last), so a committed row never
    // refers to a file a crash could lose; a failure of either rolls back and deletes the files.
    syncing = batch.sync();
    const durable = syncing;
    durable.catch(() => {}); // awaited in the transaction; a rows' failure first must not leave it unhandled
    const report = await writeRows(manifest, durable);
    committed = true;
    return report;
  } catch (error) {
    failure = error;
    throw error;
  } finally {
    await journal?.close();
    if (!committed) {
      // No deferred rename (nor fsync) may land after the deletes.
      await (syncing ?? batch.sync()).catch(() => {});
      const deleted = await Promise.allSettled(storedKeys.map((k) => blobs.delete(k)));
      // A file that could not be deleted stays in the journal: the sweep retries it.
      if (deleted.every((d) => d.status === 'fulfilled')) await journal?.fail(failure);
    }
    await fs.promises.rm(dir, { recursive: true, force: true });
  }

  /** Every key the files, thumbnails and earlier versions of the archive can take here (decided once documents.ndjson and document_versions.ndjson are read). */
  function plannedKeys(): string[] {
    const keys: string[] = [];
    for (const [archived, documentId] of ids) {
      keys.push(currentKeys.get(archived) ?? blobKey(documentId), `tenants/${tenantId}/thumbnails/${documentId}`);
    }
    keys.push(...versionKeys.values());
    return keys;
  }

  /** Where a blob of this tenant lives: the service's document key (src/modules/documents/document-job-kinds.ts documentBlobKey). */
  function blobKey(id: string): string {
    return `tenants/${tenantId}/documents/${id}`;
  }

  /**
   * Decides the blob key of every version, as the versions service names them: version 1 keeps
   * the document's key (its bytes were the document's before a second version came), every later
   * version the key of its own id — both with the ids here. The version whose key was the
   * document's `storage_key` is the current file (`files/<document id>`); every other one must
   * come as `versions/<version id>`.
   */
  async function placeVersions(file: string): Promise<void> {
    for await (const row of ndjsonRows(file)) {
      const id = String(row.id);
      const documentId = String(row.document_id);
      const newDocumentId = ids.get(documentId);
      if (!newDocumentId)
        throw damaged(rowsEntry('document_versions'), `version ${id} belongs to no document of documents.ndjson`);
      const sourceKey = typeof row.storage_key === 'string' ? row.storage_key : '';
      const key = sourceKey.endsWith(`/${documentId}`) ? blobKey(newDocumentId) : blobKey(remap.get(id) ?? id);
      if (sourceKey !== '' && sourceKey === sourceKeys.get(documentId)) currentKeys.set(documentId, key);
      else versionKeys.set(id, key);
    }
  }

  /** Ids of `table` taken on this service get new ones (the map is shared by every table: ids are UUIDv7, unique across tables). */
  async function decideIds(file: string, table: string): Promise<void> {
    let batch: string[] = [];
    const flush = async () => {
      for (const id of await takenIds(db, table, batch)) remap.set(id, newId(deps.now()));
      batch = [];
    };
    for await (const row of ndjsonRows(file)) {
      batch.push(String(row.id));
      if (batch.length >= 500) await flush();
    }
    await flush();
  }

  async function writeRows(m: Manifest, durable: Promise<void>): Promise<ImportReport> {
    const signed = manifestSignedBy(m, await getOrCreateServerSecret(db, SIGNING_SECRET_NAME, deps.now()));
    const rewrite = (value: unknown): unknown =>
      typeof value === 'string' && remap.size > 0
        ? value.replace(UUID_IN_TEXT, (id) => remap.get(id.toLowerCase()) ?? id)
        : value;
    const tenantJson = JSON.parse(await fs.promises.readFile(staged.get('tenant.json')!, 'utf8')) as Record<
      string,
      unknown
    >;
    const imported: Record<string, number> = {};
    const remapped: Record<string, number> = {};
    const now = deps.now();
    const tenant = { id: tenantId, name: options.name ?? String(tenantJson.name ?? m.tenant.name), subdomain, tier };
    await db.transaction().execute(async (trx) => {
      await journal!.commit(trx);
      await insertTenant(trx, database.dialect, {
        id: tenantId,
        twinId: newId(now),
        name: tenant.name,
        subdomain,
        tier,
        corsOrigins: typeof tenantJson.cors_origins === 'string' ? tenantJson.cors_origins : '[]',
        settings: typeof tenantJson.settings === 'string' ? tenantJson.settings : '{}',
        now,
      });
      for (const resource of ARCHIVE_RESOURCES) {
        const file = staged.get(rowsEntry(resource.table));
        if (!file) {
          warnings.push(
            `${rowsEntry(resource.table)} is not in the archive (an older format): nothing of ${resource.table} imported`,
          );
          continue;
        }
        const known = await tableColumns(trx, database.dialect, resource.table);
        const dropped = new Set<string>();
        let columns: string[] | null = null;
        let count = 0;
        let moved = 0;
        /** A batch of rows as they go in here, inserted before the next batch is read (ndjson-batches.ts). */
        const insert = async (rows: Record<string, unknown>[]) => {
          const values: unknown[][] = [];
          for (const row of rows) {
            const shaped = shape(resource, row, signed);
            if (columns === null) {
              columns = Object.keys(shaped).filter((c) => known.has(c));
              for (const c of Object.keys(shaped)) if (!known.has(c)) dropped.add(c);
            }
            if (resource.key.length === 1 && resource.key[0] === 'id' && remap.has(String(row.id))) moved++;
            values.push(columns.map((c) => (c === 'tenant_id' ? tenantId : rewrite(decodeValue(shaped[c])))));
          }
          count += rows.length;
          if (columns !== null) await insertRows(trx, database.dialect, resource.table, columns, values);
        };
        if (resource.selfReference) {
          // Parents before children needs the whole table (folders: small next to documents).
          const all: Record<string, unknown>[] = [];
          for await (const row of ndjsonRows(file)) all.push(row);
          const ordered = parentsFirst(all, resource.selfReference);
          for (let i = 0; i < ordered.length; i += BATCH_ROWS) await insert(ordered.slice(i, i + BATCH_ROWS));
        } else {
          for await (const rows of ndjsonBatches(file)) await insert(rows);
        }
        if (dropped.size > 0)
          warnings.push(
            `${resource.table}: column(s) ${[...dropped].join(', ')} unknown to this service, not imported`,
          );
        imported[resource.table] = count;
        if (moved > 0) remapped[resource.table] = moved;
      }
      await durable;
    });
    imported.files = [...staged.keys()].filter((k) => k.startsWith('files/')).length;
    imported.thumbnails = [...staged.keys()].filter((k) => k.startsWith('thumbnails/')).length;
    imported.version_files = [...staged.keys()].filter((k) => k.startsWith('versions/')).length;
    const usersToReset = signed ? 0 : (imported.users ?? 0);
    const notImported: Record<string, string> = { ...m.not_portable };
    if (m.api_keys.length > 0)
      notImported.api_keys = `${m.api_keys.length} API key(s) not portable (${m.api_keys.map((k) => `${k.name} ${k.prefix}…`).join(', ')}): create new keys`;
    if (usersToReset > 0)
      notImported.passwords = `the archive was not made by this service: ${usersToReset} user(s) must reset their password (POST /api/v1/auth/forgot-password)`;
    return { tenant, imported, not_imported: notImported, remapped, passwords: signed ? 'kept' : 'reset', warnings };
  }

  /** A row of the archive as it goes in here: blob keys of the new tenant, secrets gone, what the service derives left to it. */
  function shape(resource: ArchiveResource, row: Record<string, unknown>, signed: boolean): Record<string, unknown> {
    const out: Record<string, unknown> = { ...row };
    for (const c of resource.derived ?? []) delete out[c];
    switch (resource.table) {
      case 'documents': {
        const id = remap.get(String(row.id)) ?? String(row.id);
        out.storage_key = currentKeys.get(String(row.id)) ?? blobKey(id);
        out.thumbnail_key = staged.has(thumbnailEntry(String(row.id))) ? `tenants/${tenantId}/thumbnails/${id}` : null;
        if (!staged.has(fileEntry(String(row.id))))
          throw damaged(
            fileEntry(String(row.id)),
            'missing: documents.ndjson lists the document but the archive has no file for it',
          );
        break;
      }
      case 'document_versions': {
        const current = currentKeys.get(String(row.document_id));
        const own = versionKeys.get(String(row.id));
        if (own) {
          if (!staged.has(versionEntry(String(row.id))))
            throw damaged(
              versionEntry(String(row.id)),
              'missing: document_versions.ndjson lists the version but the archive has no file for it',
            );
          out.storage_key = own;
        } else if (current) out.storage_key = current;
        else throw damaged(rowsEntry('document_versions'), `version ${String(row.id)} has no file`);
        break;
      }
      case 'folders':
        out.document_count = 0; // the documents' insert trigger counts them again
        break;
      case 'users':
        if (!signed) out.password_hash = null;
        break;
      case 'webhooks':
        out.secret = '';
        out.status = 'paused';
        out.status_reason = 'imported: the signing secret is not portable; set a new secret before resuming';
        out.consecutive_failures = 0;
        out.failing_since = null;
        out.circuit_open_until = null;
        break;
      case 'mcp_servers':
        out.headers_sealed = null;
        break;
    }
    return out;
  }
}
