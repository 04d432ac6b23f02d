import type { Readable } from 'node:stream';

/** What a successful put stored. */
export interface StoredBlob {
  size: number;
  /** Hex SHA-256 of the bytes, computed while streaming. */
  sha256: string;
}

/** What the caller knows the bytes must be (a document's recorded hash and size). */
export interface ExpectedBytes {
  /** Hex SHA-256. */
  sha256: string;
  /** Lets a store choose how to prove the bytes (S3: one checked PUT or checked parts); absent when unknown. */
  size?: number;
}

export interface PutOptions {
  /** Stop and store nothing once the stream passes this many bytes (throws BlobTooLargeError). */
  maxBytes?: number;
  contentType?: string;
  /**
   * Keep the object only if the store can prove it holds exactly these bytes (each store says how);
   * otherwise throw BlobChecksumMismatchError with nothing stored.
   */
  expected?: ExpectedBytes;
}

/** What `head` knows of a stored blob. */
export interface BlobHead {
  size: number;
  /**
   * Hex SHA-256 of the whole object as the store checked it on arrival (S3 with checksums); absent
   * when the store keeps none, or only a checksum of parts.
   */
  sha256?: string;
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
  /** Size (and recorded SHA-256, when the store keeps one) of the blob, or null when absent. */
  head(key: string): Promise<BlobHead | null>;
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

/** The stored bytes would not be the expected ones (corrupted on the way, or a source that changed). */
export class BlobChecksumMismatchError extends Error {
  constructor(key: string, detail: string) {
    super(`checksum mismatch for ${key}: ${detail}`);
    this.name = 'BlobChecksumMismatchError';
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

/** How `actual` differs from `expected`, or null when they agree. */
export function mismatchOf(expected: ExpectedBytes, actual: StoredBlob): string | null {
  if (expected.size !== undefined && expected.size !== actual.size)
    return `expected ${expected.size} bytes, got ${actual.size}`;
  if (expected.sha256 !== actual.sha256) return `expected sha256 ${expected.sha256}, got ${actual.sha256}`;
  return null;
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
