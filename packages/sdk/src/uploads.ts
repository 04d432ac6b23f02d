import { openAsBlob } from 'node:fs';
import { basename } from 'node:path';
import { Readable } from 'node:stream';

/** What to upload: a file path, a Blob (or File), or a stream with its name (and size, for progress). */
export type UploadSource =
  | string
  | Blob
  | { stream: ReadableStream<Uint8Array> | NodeJS.ReadableStream; filename: string; size?: number };

/** Upload progress: bytes handed to the connection so far, and the file's size when known. */
export interface UploadProgress {
  loaded: number;
  total: number | undefined;
}

/** A file resolved for sending: its name, size, and a way to read it (again, for a retry, when `repeatable`). */
export interface ResolvedFile {
  filename: string;
  size: number | undefined;
  repeatable: boolean;
  open(): ReadableStream<Uint8Array>;
}

/** Resolves a source; a path becomes a lazily read Blob, so nothing is loaded into memory. */
export async function resolveSource(source: UploadSource, filename?: string): Promise<ResolvedFile> {
  if (typeof source === 'string') {
    const blob = await openAsBlob(source);
    return fromBlob(blob, filename ?? basename(source));
  }
  if (source instanceof Blob)
    return fromBlob(
      source,
      filename ?? ('name' in source && typeof source.name === 'string' ? source.name : 'upload.bin'),
    );
  let used = false;
  const stream =
    source.stream instanceof ReadableStream
      ? source.stream
      : (Readable.toWeb(source.stream as Readable) as ReadableStream<Uint8Array>);
  return {
    filename: filename ?? source.filename,
    size: source.size,
    repeatable: false,
    open() {
      if (used) throw new Error('a stream can be uploaded once; pass a path or a Blob to allow retries');
      used = true;
      return stream;
    },
  };
}

function fromBlob(blob: Blob, filename: string): ResolvedFile {
  return { filename, size: blob.size, repeatable: true, open: () => blob.stream() };
}

/** A multipart/form-data body streamed part by part: text fields, then files, with progress on file bytes. */
export function multipartBody(
  fields: [string, string][],
  files: [string, ResolvedFile][],
  onProgress?: (p: UploadProgress) => void,
): { body: ReadableStream<Uint8Array>; headers: Record<string, string> } {
  const boundary = `----docuvault${crypto.randomUUID().replaceAll('-', '')}`;
  const encoder = new TextEncoder();
  const total = files.every(([, f]) => f.size !== undefined)
    ? files.reduce((sum, [, f]) => sum + (f.size ?? 0), 0)
    : undefined;
  let loaded = 0;
  async function* parts(): AsyncGenerator<Uint8Array> {
    for (const [name, value] of fields)
      yield encoder.encode(
        `--${boundary}\r\nContent-Disposition: form-data; name="${quote(name)}"\r\n\r\n${value}\r\n`,
      );
    for (const [name, file] of files) {
      yield encoder.encode(
        `--${boundary}\r\nContent-Disposition: form-data; name="${quote(name)}"; filename="${quote(file.filename)}"\r\nContent-Type: application/octet-stream\r\n\r\n`,
      );
      for await (const chunk of file.open()) {
        loaded += chunk.byteLength;
        onProgress?.({ loaded, total });
        yield chunk;
      }
      yield encoder.encode('\r\n');
    }
    yield encoder.encode(`--${boundary}--\r\n`);
  }
  return { body: streamOf(parts()), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

// Pulled chunk by chunk, so a file is read only as fast as the connection takes it.
function streamOf(chunks: AsyncGenerator<Uint8Array>): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await chunks.next();
      if (next.done) controller.close();
      else controller.enqueue(next.value);
    },
    async cancel(reason) {
      await chunks.throw(reason).catch(() => undefined);
    },
  });
}

// RFC 7578: quotes and line breaks in names are percent-encoded, as browsers do.
function quote(value: string): string {
  return value.replace(/"/g, '%22').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}
