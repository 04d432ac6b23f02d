import { createHash, type Hash } from 'node:crypto';
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

/** The additional checksums S3 computes and keeps (the ones the SDK and this project use). */
export type ChecksumAlgorithm = 'crc32' | 'sha256';

/** A checksum kept with an object or part: the whole object's, or one of its parts' checksums (`…-N`). */
export interface StoredChecksum {
  algorithm: ChecksumAlgorithm;
  value: string;
  type: 'FULL_OBJECT' | 'COMPOSITE';
}

/** Counts bytes and computes MD5 (the ETag) and CRC32 (the SDK's default checksum), and SHA-256 when asked, on the way to disk. */
export class BodyTap extends Transform {
  readonly #md5 = createHash('md5');
  readonly #sha256: Hash | null;
  #crc = 0;
  size = 0;

  constructor(options: { sha256?: boolean } = {}) {
    super();
    this.#sha256 = options.sha256 ? createHash('sha256') : null;
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.size += chunk.length;
    this.#md5.update(chunk);
    this.#sha256?.update(chunk);
    this.#crc = crc32(chunk, this.#crc);
    callback(null, chunk);
  }

  md5(): Buffer {
    return this.#md5.digest();
  }

  /** The body's checksum as S3 spells it (base64 of the raw value); SHA-256 only if it was asked for. */
  checksum(algorithm: ChecksumAlgorithm): string {
    if (algorithm === 'sha256') {
      if (!this.#sha256)
        throw new S3Error(400, 'InvalidRequest', 'a SHA-256 trailer must be announced in x-amz-trailer');
      return this.#sha256.digest('base64');
    }
    const out = Buffer.alloc(4);
    out.writeUInt32BE(this.#crc >>> 0);
    return out.toString('base64');
  }
}

/** The checksum of a multipart object from its parts' checksums: the algorithm over their raw values, `-<parts>`. */
export function compositeChecksum(algorithm: ChecksumAlgorithm, parts: string[]): string {
  const raw = Buffer.concat(parts.map((p) => Buffer.from(p, 'base64')));
  let digest: string;
  if (algorithm === 'sha256') digest = createHash('sha256').update(raw).digest('base64');
  else {
    const out = Buffer.alloc(4);
    out.writeUInt32BE(crc32(raw) >>> 0);
    digest = out.toString('base64');
  }
  return `${digest}-${parts.length}`;
}

/** `x-amz-checksum-<algorithm>` and `x-amz-checksum-type` answer headers for a kept checksum. */
export function checksumHeaders(checksum: StoredChecksum | null): Record<string, string> {
  return checksum
    ? { [`x-amz-checksum-${checksum.algorithm}`]: checksum.value, 'x-amz-checksum-type': checksum.type }
    : {};
}

/** Whether a request announces a SHA-256 checksum (header, announced trailer, or the SDK's algorithm header), so it is computed as the body streams. */
export function announcesSha256(headers: IncomingHttpHeaders): boolean {
  const algorithm = String(
    headers['x-amz-sdk-checksum-algorithm'] ?? headers['x-amz-checksum-algorithm'] ?? '',
  ).toUpperCase();
  return (
    headers['x-amz-checksum-sha256'] !== undefined ||
    String(headers['x-amz-trailer'] ?? '').includes('x-amz-checksum-sha256') ||
    algorithm === 'SHA256'
  );
}

/**
 * Checks the checksum a body declares (`declared(name)`: its trailer or header) against what
 * arrived: a mismatch is BadDigest. Answers the checksum to keep with the object, or null when none was sent.
 */
export function checkDeclaredChecksum(
  tap: BodyTap,
  declared: (name: string) => string | undefined,
): StoredChecksum | null {
  for (const algorithm of ['sha256', 'crc32'] as const) {
    const sent = declared(`x-amz-checksum-${algorithm}`);
    if (sent === undefined) continue;
    if (sent !== tap.checksum(algorithm))
      throw new S3Error(
        400,
        'BadDigest',
        `The ${algorithm.toUpperCase()} you specified did not match the calculated checksum.`,
      );
    return { algorithm, value: sent, type: 'FULL_OBJECT' };
  }
  return null;
}

/** Flips the first byte that passes (a body corrupted on the way). */
export class FirstByteFlip extends Transform {
  #done = false;
  override _transform(chunk: Buffer, _e: BufferEncoding, callback: TransformCallback): void {
    if (!this.#done && chunk.length > 0) {
      const copy = Buffer.from(chunk);
      copy[0] = copy[0]! ^ 0xff;
      this.#done = true;
      callback(null, copy);
      return;
    }
    callback(null, chunk);
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
  if (start >= size)
    throw new S3Error(416, 'InvalidRange', 'The requested range is not satisfiable', { ActualObjectSize: size });
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
