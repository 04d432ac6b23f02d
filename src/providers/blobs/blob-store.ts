import type { Readable } from 'node:stream';

/** What a successful put stored. */
export interface StoredBlob {
  size: number;
  /** Hex SHA-256 of the bytes, computed while streaming. */
  sha256: string;
}

export interface PutOptions {
  /** Stop and store nothing once the stream passes this many bytes (throws BlobTooLargeError). */
  maxBytes?: number;
  contentType?: string;
}

/** An inclusive byte range, as in HTTP `Range: bytes=start-end`. */
export interface ByteRange {
  start: number;
  end: number;
}

/**
 * Where file bytes live: a local folder or S3-compatible storage. Keys are opaque strings chosen
 * by callers (`tenants/<id>/documents/<id>`); implementations never hold a whole file in memory.
 */
export interface BlobStore {
  readonly kind: 'local' | 's3';
  /** Streams `body` under `key`; on any failure (including too large or an aborted source) nothing is left stored. */
  put(key: string, body: Readable, options?: PutOptions): Promise<StoredBlob>;
  /** Streams the bytes (or a range of them); throws BlobNotFoundError when absent. */
  get(key: string, range?: ByteRange): Promise<Readable>;
  /** Size of the blob, or null when absent. */
  head(key: string): Promise<{ size: number } | null>;
  /** Removes the blob; absent is not an error. */
  delete(key: string): Promise<void>;
  /** Throws when the store does not answer (readiness). */
  ping(): Promise<void>;
}

export class BlobTooLargeError extends Error {
  readonly limit: number;
  constructor(limit: number) {
    super(`blob exceeds ${limit} bytes`);
    this.name = 'BlobTooLargeError';
    this.limit = limit;
  }
}

export class BlobNotFoundError extends Error {
  constructor(key: string) {
    super(`blob not found: ${key}`);
    this.name = 'BlobNotFoundError';
  }
}

/** A key that is not a safe relative path (empty, absolute, `.`/`..` segments, backslash, NUL). */
export class InvalidBlobKeyError extends Error {
  constructor(key: string, reason: string) {
    super(`invalid blob key ${JSON.stringify(key)}: ${reason}`);
    this.name = 'InvalidBlobKeyError';
  }
}

/** A range that cannot be served: negative, start after end, or starting past the last byte. */
export class BlobRangeError extends Error {
  constructor(range: ByteRange, size?: number) {
    super(`unsatisfiable range ${range.start}-${range.end}${size === undefined ? '' : ` of ${size} bytes`}`);
    this.name = 'BlobRangeError';
  }
}

const MAX_KEY_BYTES = 1024;

/**
 * Checks a key is a plain relative path (`tenants/<id>/documents/<id>`). Both adapters apply it, so
 * a key valid on one store is valid on the other and a storage migration never meets a surprise.
 */
export function assertValidBlobKey(key: string): void {
  if (typeof key !== 'string' || key.length === 0) throw new InvalidBlobKeyError(String(key), 'empty');
  if (Buffer.byteLength(key) > MAX_KEY_BYTES) throw new InvalidBlobKeyError(key, `longer than ${MAX_KEY_BYTES} bytes`);
  if (key.includes('\0')) throw new InvalidBlobKeyError(key, 'contains NUL');
  if (key.includes('\\')) throw new InvalidBlobKeyError(key, 'contains a backslash');
  if (key.startsWith('/')) throw new InvalidBlobKeyError(key, 'absolute path');
  for (const segment of key.split('/')) {
    if (segment === '' || segment === '.' || segment === '..') {
      throw new InvalidBlobKeyError(key, 'empty, "." or ".." path segment');
    }
  }
}

/** Checks the shape of a range (not the blob size, which only the store knows). */
export function assertValidRange(range: ByteRange): void {
  const { start, end } = range;
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || start < 0 || end < start) {
    throw new BlobRangeError(range);
  }
}
