import { createWriteStream } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ApiCaller } from './api-caller.ts';
import { fillPath } from './paths.ts';
import { OPERATIONS } from './generated/api-types.ts';
import type { BatchUploadResponse, Document, UploadResponse } from './operation-types.ts';
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
  onProgress?: (progress: UploadProgress) => void;
  signal?: AbortSignal;
  idempotencyKey?: string;
}

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
    return this.#post<UploadResponse>(OPERATIONS.uploadDocument.path, fieldsOf(options, true), [['file', file]], options);
  }

  /** Uploads up to 10 files in one request; the answer lists the accepted documents and the `rejected` ones. */
  async uploadBatch(sources: UploadSource[], options: Omit<UploadOptions, 'filename' | 'tags'> = {}): Promise<BatchUploadResponse> {
    const files = await Promise.all(sources.map((s) => resolveSource(s)));
    return this.#post<BatchUploadResponse>(OPERATIONS.uploadDocumentBatch.path, fieldsOf(options, false), files.map((f) => ['files', f] as [string, ResolvedFile]), options);
  }

  /** The download's Response (stream it from `body`); `range` asks for a part, e.g. `bytes=0-99`. */
  download(id: string, options: { range?: string; signal?: AbortSignal } = {}): Promise<Response> {
    return this.#client.send('downloadDocument', { path: { id }, headers: { accept: '*/*', ...(options.range ? { range: options.range } : {}) }, ...(options.signal ? { signal: options.signal } : {}) });
  }

  /** The hex SHA-256 of a document's bytes (its download ETag), asked with HEAD: nothing is downloaded. */
  async sha256(id: string): Promise<string | null> {
    const res = await this.#transport.send({ method: 'HEAD', url: this.#client.url(fillPath(OPERATIONS.downloadDocument.path, { id })), headers: { accept: '*/*' }, retryable: true });
    return res.headers.get('etag')?.replace(/^(W\/)?"|"$/g, '') ?? null;
  }

  /** Downloads a document to a file; answers the number of bytes written. */
  async downloadTo(id: string, filePath: string, options: { signal?: AbortSignal } = {}): Promise<number> {
    const res = await this.download(id, options);
    if (!res.body) return 0;
    let bytes = 0;
    const counted = Readable.fromWeb(res.body as import('node:stream/web').ReadableStream<Uint8Array>).on('data', (chunk: Buffer) => {
      bytes += chunk.length;
    });
    await pipeline(counted, createWriteStream(filePath));
    return bytes;
  }

  /** Polls a document until extraction and AI are finished (or failed); answers it. */
  async waitUntilProcessed(id: string, options: { intervalMs?: number; timeoutMs?: number } = {}): Promise<Document> {
    const deadline = Date.now() + (options.timeoutMs ?? 120_000);
    for (;;) {
      const doc = await this.#client.call('getDocument', { path: { id } });
      if (doc.status !== 'processing' && !['queued', 'processing'].includes(doc.ai_status)) return doc;
      if (Date.now() > deadline) throw new Error(`document ${id} still processing after ${options.timeoutMs ?? 120_000} ms`);
      await new Promise((r) => setTimeout(r, options.intervalMs ?? 250));
    }
  }

  async #post<T>(path: string, fields: [string, string][], files: [string, ResolvedFile][], options: UploadOptions): Promise<T> {
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

function fieldsOf(options: UploadOptions, single: boolean): [string, string][] {
  const fields: [string, string][] = [];
  if (options.folderId) fields.push(['folder_id', options.folderId]);
  if (options.enableAi !== undefined) fields.push(['enable_ai', String(options.enableAi)]);
  if (single && options.filename) fields.push(['filename', options.filename]);
  if (single) for (const tag of options.tags ?? []) fields.push(['tags', tag]);
  return fields;
}
