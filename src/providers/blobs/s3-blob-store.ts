import { pipeline, Readable } from 'node:stream';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  S3Client,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import {
  assertValidBlobKey,
  assertValidRange,
  BlobChecksumMismatchError,
  type BlobHead,
  BlobNotFoundError,
  BlobRangeError,
  type BlobStore,
  type ByteRange,
  type ChunkProducer,
  chunkStream,
  type ExpectedBytes,
  getChunksFromStream,
  mismatchOf,
  type PutOptions,
  type StoredBlob,
} from './blob-store.ts';
import { digestOf, HashingCounter } from './hashing-counter.ts';
import { checksumParams, serverChecked, wholeObjectSha256 } from './s3-checksums.ts';

export interface S3BlobStoreOptions {
  bucket: string;
  region: string;
  /** Custom endpoint (MinIO, R2, Ceph, a test server); null or absent means AWS. */
  endpoint?: string | null;
  /** Static credentials; absent means the SDK's default chain (env, profile, instance role). */
  credentials?: { accessKeyId: string; secretAccessKey: string };
  forcePathStyle?: boolean;
  /** Prepended to every key (`prefix/key`), to share a bucket between deployments. */
  prefix?: string;
  /** Multipart part size; S3's minimum is 5 MiB. Memory per upload is about partSize x (queueSize + 1). */
  partSize?: number;
  /** Parts uploaded in parallel per put. */
  queueSize?: number;
  /** Extra S3Client settings (checksum modes, retries, request handler); merged last. */
  clientConfig?: S3ClientConfig;
}

const DEFAULT_PART_SIZE = 8 * 1024 * 1024;
const DEFAULT_QUEUE_SIZE = 3;

/**
 * Blobs as objects in an S3-compatible bucket. Uploads stream through lib-storage's multipart
 * `Upload` with bounded parts, so memory stays flat whatever the file size.
 */
export class S3BlobStore implements BlobStore {
  readonly kind = 's3' as const;
  readonly client: S3Client;
  readonly bucket: string;
  readonly #prefix: string;
  readonly #partSize: number;
  readonly #queueSize: number;

  constructor(options: S3BlobStoreOptions) {
    this.bucket = options.bucket;
    this.#prefix = options.prefix ? `${options.prefix.replace(/^\/+|\/+$/g, '')}/` : '';
    this.#partSize = options.partSize ?? DEFAULT_PART_SIZE;
    this.#queueSize = options.queueSize ?? DEFAULT_QUEUE_SIZE;
    this.client = new S3Client({
      region: options.region,
      ...(options.endpoint ? { endpoint: options.endpoint } : {}),
      ...(options.credentials ? { credentials: options.credentials } : {}),
      forcePathStyle: options.forcePathStyle ?? false,
      ...options.clientConfig,
    });
  }

  async put(key: string, body: Readable, options: PutOptions = {}): Promise<StoredBlob> {
    let objectKey: string;
    try {
      objectKey = this.#objectKey(key);
    } catch (error) {
      body.destroy();
      throw error;
    }
    const counter = new HashingCounter(options.maxBytes);
    // Our own failure (too large, source error) is remembered so it wins over the SDK's wrapping.
    let streamError: Error | undefined;
    const hashed = pipeline(body, counter, (error) => {
      if (error) streamError ??= error;
    });
    const checksums = checksumParams(options.expected, this.#partSize);
    const upload = new Upload({
      client: this.client,
      params: { Bucket: this.bucket, Key: objectKey, Body: hashed, ContentType: options.contentType, ...checksums },
      partSize: this.#partSize,
      queueSize: this.#queueSize,
      // On failure, done() waits for in-flight parts, then sends AbortMultipartUpload before rejecting.
      leavePartsOnError: false,
    });
    let answered: string | undefined;
    try {
      answered = (await upload.done()).ChecksumSHA256;
    } catch (error) {
      if (streamError) throw streamError;
      if (errorName(error) === 'BadDigest')
        throw new BlobChecksumMismatchError(key, 'the server received other bytes than the checksum sent (BadDigest)');
      throw error;
    } finally {
      // If the upload failed on its side, stop reading the source instead of leaving it paused.
      if (!counter.writableFinished) {
        counter.destroy();
        body.destroy();
      }
    }
    if (streamError) throw streamError;
    const stored = { size: counter.bytesSeen, sha256: counter.digest() };
    if (options.expected) await this.#prove(key, options.expected, stored, answered);
    return stored;
  }

  /**
   * Keeps the object only if it is `expected`: the bytes sent must be those, and the server must
   * have checked what it received against their SHA-256 (whole or by part). A server without
   * additional checksums confirms nothing, so the object is read back and hashed instead.
   */
  async #prove(key: string, expected: ExpectedBytes, sent: StoredBlob, answered: string | undefined): Promise<void> {
    let mismatch = mismatchOf(expected, sent);
    if (!mismatch && !serverChecked(answered, sent.sha256)) {
      const wrong = mismatchOf(expected, await digestOf(await this.get(key)));
      mismatch = wrong && `read back: ${wrong}`;
    }
    if (!mismatch) return;
    await this.delete(key);
    throw new BlobChecksumMismatchError(key, mismatch);
  }

  async get(key: string, range?: ByteRange): Promise<Readable> {
    const objectKey = this.#objectKey(key);
    if (range) assertValidRange(range);
    try {
      const response = await this.client.send(
        new GetObjectCommand({
          Bucket: this.bucket,
          Key: objectKey,
          ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}),
        }),
      );
      const stream = response.Body;
      if (!(stream instanceof Readable)) throw new Error('S3 GetObject returned no Node.js stream');
      return stream;
    } catch (error) {
      if (errorName(error) === 'NoSuchKey') throw new BlobNotFoundError(key);
      if (range && (errorName(error) === 'InvalidRange' || httpStatus(error) === 416)) throw new BlobRangeError(range);
      throw error;
    }
  }

  async head(key: string): Promise<BlobHead | null> {
    const objectKey = this.#objectKey(key);
    try {
      const response = await this.client.send(
        new HeadObjectCommand({ Bucket: this.bucket, Key: objectKey, ChecksumMode: 'ENABLED' }),
      );
      const sha256 = wholeObjectSha256(response.ChecksumSHA256);
      return { size: response.ContentLength ?? 0, ...(sha256 ? { sha256 } : {}) };
    } catch (error) {
      // HEAD answers have no body, so a missing key is only a bare 404 ("NotFound").
      if (errorName(error) === 'NotFound' || errorName(error) === 'NoSuchKey') return null;
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: this.#objectKey(key) }));
  }

  async getChunks(key: string, onChunk: (chunk: Uint8Array) => void | Promise<void>): Promise<number> {
    return getChunksFromStream(await this.get(key), onChunk);
  }

  putChunks(key: string, produce: ChunkProducer, options?: PutOptions): Promise<StoredBlob> {
    return this.put(key, chunkStream(produce), options);
  }

  async ping(): Promise<void> {
    await this.client.send(new HeadBucketCommand({ Bucket: this.bucket }));
  }

  /** Closes the client's sockets (tests, shutdown). */
  destroy(): void {
    this.client.destroy();
  }

  #objectKey(key: string): string {
    assertValidBlobKey(key);
    return this.#prefix + key;
  }
}

function errorName(error: unknown): string | undefined {
  return (error as { name?: string } | null)?.name;
}

function httpStatus(error: unknown): number | undefined {
  return (error as { $metadata?: { httpStatusCode?: number } } | null)?.$metadata?.httpStatusCode;
}
