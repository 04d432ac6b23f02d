import { createWriteStream } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ApiCaller } from './api-caller.ts';
import { fillPath } from './paths.ts';
import { OPERATIONS } from './generated/api-types.ts';
import type {
  BatchUploadResponse,
  Document,
  DocumentVersionList,
  UploadResponse,
  VersionRestoreResponse,
  VersionUploadResponse,
} from './operation-types.ts';
import type { Transport } from './transport.ts';
import { multipartBody, type ResolvedFile, resolveSource, type UploadProgress, type UploadSource } from './uploads.ts';

/** Options of an upload. */
export interface UploadOptions {
  folderId?: string;
  tags?: string[];
  /** Default true; false skips summary, tags and entities. */
  enableAi?: boolean;
  /** A name to store instead of the file's own. */
  filename?: string;
  /** A file identical to a document you can see: `store` (default, answered with `duplicate_of`) or `skip` (nothing stored, the existing document answered). */
  onDuplicate?: 'store' | 'skip';
  onProgress?: (progress: UploadProgress) => void;
  signal?: AbortSignal;
  idempotencyKey?: string;
}

/** Options of a version upload: only the name may change besides the file. */
export type VersionUploadOptions = Pick<UploadOptions, 'filename' | 'onProgress' | 'signal' | 'idempotencyKey'>;

/** Uploads (streamed, with progress), downloads and waiting for processing. */
export class DocumentsApi {
  readonly #client: ApiCaller;
  readonly #transport: Transport;

  constructor(client: ApiCaller, transport: Transport) {
    this.#client = client;
    this.#transport = transport;
  }

  /** Uploads one file from a path, a Blob or a stream; retried (same Idempotency-Key) unless it is a one-shot stream. */
  async upload(source: UploadSource, options: UploadOptions = {}): Promise<UploadResponse> {
    const file = await resolveSource(source, options.filename);
    return this.#post<UploadResponse>(
      OPERATIONS.uploadDocument.path,
      fieldsOf(options, true),
      [['file', file]],
      options,
    );
  }

  /** Uploads up to 10 files in one request; the answer lists the accepted documents and the `rejected` ones. */
  async uploadBatch(
    sources: UploadSource[],
    options: Omit<UploadOptions, 'filename' | 'tags'> = {},
  ): Promise<BatchUploadResponse> {
    const files = await Promise.all(sources.map((s) => resolveSource(s)));
    return this.#post<BatchUploadResponse>(
      OPERATIONS.uploadDocumentBatch.path,
      fieldsOf(options, false),
      files.map((f) => ['files', f] as [string, ResolvedFile]),
      options,
    );
  }

  /**
   * Uploads a new file as the document's current version (docs/versions.md); the earlier versions
   * are kept. A file identical to the current version answers it with `created: false`.
   */
  async uploadVersion(
    id: string,
    source: UploadSource,
    options: VersionUploadOptions = {},
  ): Promise<VersionUploadResponse> {
    const file = await resolveSource(source, options.filename);
    const fields: [string, string][] = options.filename ? [['filename', options.filename]] : [];
    return this.#post<VersionUploadResponse>(
      fillPath(OPERATIONS.uploadDocumentVersion.path, { id }),
      fields,
      [['file', file]],
      options,
    );
  }

  /** The document's versions, oldest first, with `current_version`. */
  versions(id: string, options: { signal?: AbortSignal } = {}): Promise<DocumentVersionList> {
    return this.#client.call('listDocumentVersions', {
      path: { id },
      ...(options.signal ? { signal: options.signal } : {}),
    });
  }

  /** One version's download Response (stream it from `body`); `range` as for `download`. */
  downloadVersion(
    id: string,
    version: number,
    options: { range?: string; signal?: AbortSignal } = {},
  ): Promise<Response> {
    return this.#client.send('downloadDocumentVersion', {
      path: { id, number: String(version) },
      headers: { accept: '*/*', ...(options.range ? { range: options.range } : {}) },
      ...(options.signal ? { signal: options.signal } : {}),
    });
  }

  /** Downloads one version to a file; answers the number of bytes written. */
  async downloadVersionTo(
    id: string,
    version: number,
    filePath: string,
    options: { signal?: AbortSignal } = {},
  ): Promise<number> {
    return writeBody(await this.downloadVersion(id, version, options), filePath);
  }

  /** Makes an earlier version current again (marked, not copied); `restored: false` when it already was. */
  restoreVersion(id: string, version: number): Promise<VersionRestoreResponse> {
    return this.#client.call('restoreDocumentVersion', { path: { id, number: String(version) } });
  }

  /** The download's Response (stream it from `body`); `range` asks for a part, e.g. `bytes=0-99`. */
  download(id: string, options: { range?: string; signal?: AbortSignal } = {}): Promise<Response> {
    return this.#client.send('downloadDocument', {
      path: { id },
      headers: { accept: '*/*', ...(options.range ? { range: options.range } : {}) },
      ...(options.signal ? { signal: options.signal } : {}),
    });
  }

  /** The hex SHA-256 of a document's bytes (its download ETag), asked with HEAD: nothing is downloaded. */
  async sha256(id: string): Promise<string | null> {
    const res = await this.#transport.send({
      method: 'HEAD',
      url: this.#client.url(fillPath(OPERATIONS.downloadDocument.path, { id })),
      headers: { accept: '*/*' },
      retryable: true,
    });
    return res.headers.get('etag')?.replace(/^(W\/)?"|"$/g, '') ?? null;
  }

  /** Downloads a document to a file; answers the number of bytes written. */
  async downloadTo(id: string, filePath: string, options: { signal?: AbortSignal } = {}): Promise<number> {
    return writeBody(await this.download(id, options), filePath);
  }

  /** Polls a document until extraction and AI are finished (or failed); answers it. */
  async waitUntilProcessed(id: string, options: { intervalMs?: number; timeoutMs?: number } = {}): Promise<Document> {
    const deadline = Date.now() + (options.timeoutMs ?? 120_000);
    for (;;) {
      const doc = await this.#client.call('getDocument', { path: { id } });
      if (doc.status !== 'processing' && !['queued', 'processing'].includes(doc.ai_status)) return doc;
      if (Date.now() > deadline)
        throw new Error(`document ${id} still processing after ${options.timeoutMs ?? 120_000} ms`);
      await new Promise((r) => setTimeout(r, options.intervalMs ?? 250));
    }
  }

  async #post<T>(
    path: string,
    fields: [string, string][],
    files: [string, ResolvedFile][],
    options: UploadOptions,
  ): Promise<T> {
    const key = options.idempotencyKey ?? crypto.randomUUID();
    const res = await this.#transport.send({
      method: 'POST',
      url: this.#client.url(path),
      headers: { 'idempotency-key': key },
      body: () => multipartBody(fields, files, options.onProgress),
      retryable: files.every(([, f]) => f.repeatable),
      signal: options.signal,
    });
    return (await res.json()) as T;
  }
}

/** Writes a download's body to a file; answers the number of bytes written. */
async function writeBody(res: Response, filePath: string): Promise<number> {
  if (!res.body) return 0;
  let bytes = 0;
  const counted = Readable.fromWeb(res.body as import('node:stream/web').ReadableStream<Uint8Array>).on(
    'data',
    (chunk: Buffer) => {
      bytes += chunk.length;
    },
  );
  await pipeline(counted, createWriteStream(filePath));
  return bytes;
}

function fieldsOf(options: UploadOptions, single: boolean): [string, string][] {
  const fields: [string, string][] = [];
  if (options.onDuplicate) fields.push(['on_duplicate', options.onDuplicate]);
  if (options.folderId) fields.push(['folder_id', options.folderId]);
  if (options.enableAi !== undefined) fields.push(['enable_ai', String(options.enableAi)]);
  if (single && options.filename) fields.push(['filename', options.filename]);
  if (single) for (const tag of options.tags ?? []) fields.push(['tags', tag]);
  return fields;
}
