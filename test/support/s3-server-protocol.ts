import { createHash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { Transform, type TransformCallback } from 'node:stream';
import { crc32 } from 'node:zlib';

// Wire-format helpers for the test S3 server: aws-chunked bodies, checksums, ranges and XML.

/** An S3 error answered as `<Error><Code>…` with its HTTP status. */
export class S3Error extends Error {
  readonly status: number;
  readonly code: string;
  readonly extra: Record<string, string | number>;
  constructor(status: number, code: string, message: string, extra: Record<string, string | number> = {}) {
    super(message);
    this.status = status;
    this.code = code;
    this.extra = extra;
  }
}

/** True when the body is framed as `aws-chunked` (what SDK v3 sends for streaming and trailing checksums). */
export function isAwsChunked(headers: IncomingHttpHeaders): boolean {
  const encoding = String(headers['content-encoding'] ?? '');
  const sha = String(headers['x-amz-content-sha256'] ?? '');
  return encoding.split(',').some((e) => e.trim() === 'aws-chunked') || sha.startsWith('STREAMING-');
}

const MAX_LINE = 8 * 1024;

/**
 * Decodes `aws-chunked` framing: `<hex size>[;chunk-signature=…]\r\n<bytes>\r\n` … `0\r\n`, then
 * optional trailer lines (`x-amz-checksum-crc32:<base64>`) and a blank line. Streams; keeps no body.
 */
export class AwsChunkedDecoder extends Transform {
  readonly trailers = new Map<string, string>();
  #state: 'size' | 'data' | 'data-crlf' | 'trailer' | 'done' = 'size';
  #line = '';
  #remaining = 0;

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    let i = 0;
    try {
      while (i < chunk.length && this.#state !== 'done') {
        if (this.#state === 'data') {
          const take = Math.min(this.#remaining, chunk.length - i);
          this.push(chunk.subarray(i, i + take));
          i += take;
          this.#remaining -= take;
          if (this.#remaining === 0) this.#state = 'data-crlf';
          continue;
        }
        const newline = chunk.indexOf(10, i);
        const end = newline === -1 ? chunk.length : newline + 1;
        this.#line += chunk.toString('latin1', i, end);
        i = end;
        if (this.#line.length > MAX_LINE) throw new S3Error(400, 'IncompleteBody', 'chunk header too long');
        if (newline === -1) continue;
        const line = this.#line.replace(/\r?\n$/, '');
        this.#line = '';
        this.#onLine(line);
      }
      callback();
    } catch (error) {
      callback(error as Error);
    }
  }

  override _flush(callback: TransformCallback): void {
    // Some clients end right after the `0` chunk without a trailer section.
    const complete = this.#state === 'done' || (this.#state === 'trailer' && this.#line === '');
    callback(complete ? null : new S3Error(400, 'IncompleteBody', 'aws-chunked body ended early'));
  }

  #onLine(line: string): void {
    if (this.#state === 'data-crlf') {
      if (line !== '') throw new S3Error(400, 'IncompleteBody', 'missing CRLF after chunk');
      this.#state = 'size';
    } else if (this.#state === 'size') {
      const size = Number.parseInt(line.split(';')[0] ?? '', 16);
      if (!Number.isSafeInteger(size) || size < 0) throw new S3Error(400, 'IncompleteBody', `bad chunk size "${line}"`);
      this.#remaining = size;
      this.#state = size === 0 ? 'trailer' : 'data';
    } else if (this.#state === 'trailer') {
      if (line === '') {
        this.#state = 'done';
        return;
      }
      const colon = line.indexOf(':');
      if (colon > 0) this.trailers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
    }
  }
}

/** Counts bytes and computes MD5 (the ETag) and CRC32 (the SDK's default checksum) on the way to disk. */
export class BodyTap extends Transform {
  readonly #md5 = createHash('md5');
  #crc = 0;
  size = 0;

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.size += chunk.length;
    this.#md5.update(chunk);
    this.#crc = crc32(chunk, this.#crc);
    callback(null, chunk);
  }

  md5(): Buffer {
    return this.#md5.digest();
  }

  /** CRC32 as S3 spells it: base64 of the big-endian 32-bit value. */
  crc32Base64(): string {
    const out = Buffer.alloc(4);
    out.writeUInt32BE(this.#crc >>> 0);
    return out.toString('base64');
  }
}

/** Parses `Range: bytes=a-b | a- | -n` against a size; null means "whole object" (as S3 does for junk). */
export function parseRange(header: string | undefined, size: number): { start: number; end: number } | null {
  const match = header ? /^bytes=(\d*)-(\d*)$/.exec(header.trim()) : null;
  if (!match || (match[1] === '' && match[2] === '')) return null;
  let start: number;
  let end: number;
  if (match[1] === '') {
    start = Math.max(0, size - Number(match[2]));
    end = size - 1;
  } else {
    start = Number(match[1]);
    end = match[2] === '' ? size - 1 : Math.min(Number(match[2]), size - 1);
    if (match[2] !== '' && Number(match[2]) < start) return null;
  }
  if (start >= size) throw new S3Error(416, 'InvalidRange', 'The requested range is not satisfiable', { ActualObjectSize: size });
  return { start, end };
}

/** Escapes text for an XML element. */
export function xmlEscape(value: string | number): string {
  return String(value).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** `<tag>value</tag>` for each entry, escaped. */
export function xmlFields(fields: Record<string, string | number | boolean>): string {
  return Object.entries(fields)
    .map(([tag, value]) => `<${tag}>${xmlEscape(String(value))}</${tag}>`)
    .join('');
}

/** A full XML document with the S3 namespace on the root element. */
export function xmlDocument(root: string, inner: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n<${root} xmlns="http://s3.amazonaws.com/doc/2006-03-01/">${inner}</${root}>`;
}

function xmlUnescape(value: string): string {
  return value
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&#(\d+);/g, (_, n: string) => String.fromCharCode(Number(n)))
    .replace(/&amp;/g, '&');
}

/** Reads the `<Part><PartNumber/><ETag/></Part>` list of a CompleteMultipartUpload body. */
export function parseCompleteParts(xml: string): { partNumber: number; etag: string }[] {
  const parts: { partNumber: number; etag: string }[] = [];
  for (const [, inner = ''] of xml.matchAll(/<Part>([\s\S]*?)<\/Part>/g)) {
    const number = /<PartNumber>\s*(\d+)\s*<\/PartNumber>/.exec(inner)?.[1];
    const etag = /<ETag>([\s\S]*?)<\/ETag>/.exec(inner)?.[1];
    if (!number || etag === undefined) throw new S3Error(400, 'MalformedXML', 'Part without PartNumber or ETag');
    parts.push({ partNumber: Number(number), etag: xmlUnescape(etag).replace(/"/g, '').trim() });
  }
  if (parts.length === 0) throw new S3Error(400, 'MalformedXML', 'no parts');
  return parts;
}
