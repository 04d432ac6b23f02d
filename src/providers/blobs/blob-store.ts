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
