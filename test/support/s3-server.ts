import { createHash, randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import {
  AwsChunkedDecoder,
  announcesSha256,
  BodyTap,
  type ChecksumAlgorithm,
  checkDeclaredChecksum,
  checksumHeaders,
  compositeChecksum,
  FirstByteFlip,
  isAwsChunked,
  parseCompleteParts,
  parseRange,
  S3Error,
  type StoredChecksum,
  xmlDocument,
  xmlFields,
} from './s3-server-protocol.ts';

// A small S3-compatible server for tests: path-style REST, bytes streamed to files in a temp folder,
// metadata in memory, no signature checks. Enough of S3 for SDK v3 and lib-storage's Upload,
// including additional checksums (CRC32, SHA-256): checked on arrival, kept, answered on request.

interface StoredFile {
  file: string;
  size: number;
  etag: string;
  checksum: StoredChecksum | null;
}
interface S3Object extends StoredFile {
  contentType: string;
  lastModified: Date;
}
interface MultipartUpload {
  bucket: string;
  key: string;
  contentType: string;
  initiated: Date;
  /** The checksum algorithm named at CreateMultipartUpload: every part is checked with it. */
  algorithm: ChecksumAlgorithm | null;
  parts: Map<number, StoredFile & { md5: Buffer }>;
}

export interface S3TestServer {
  /** `http://127.0.0.1:<port>`, for `S3Client({ endpoint, forcePathStyle: true })`. */
  endpoint: string;
  /** Multipart uploads started and neither completed nor aborted. */
  pendingUploads(bucket?: string): { bucket: string; key: string; uploadId: string }[];
  /** Keys stored in a bucket, sorted. */
  keys(bucket: string): string[];
  /** How many requests of each operation were served (`PutObject`, `UploadPart`, …). */
  operations: Map<string, number>;
  /** The next body received for `key` in `bucket` gets its first byte flipped on the way in (before any checksum check). */
  corruptNextBody(bucket: string, key: string): void;
  close(): Promise<void>;
}

const MIN_PART_SIZE = 5 * 1024 * 1024;

export interface S3TestServerOptions {
  /**
   * false: behave like an S3-compatible server without additional checksums (x-amz-checksum-*
   * sent are neither checked nor kept nor answered). Default true, as S3.
   */
  checksums?: boolean;
}

/** Starts the server on 127.0.0.1 with a random port and a fresh temp folder. */
export async function startS3Server(options: S3TestServerOptions = {}): Promise<S3TestServer> {
  const checksums = options.checksums ?? true;
  const corruptNext = new Set<string>();
  const root = await fsp.mkdtemp(path.join(os.tmpdir(), 's3-server-'));
  const buckets = new Map<string, Map<string, S3Object>>();
  const uploads = new Map<string, MultipartUpload>();
  const operations = new Map<string, number>();

  const bucketOf = (name: string) => {
    const objects = buckets.get(name);
    if (!objects) throw new S3Error(404, 'NoSuchBucket', 'The specified bucket does not exist', { BucketName: name });
    return objects;
  };
  const objectOf = (bucket: string, key: string) => {
    const object = bucketOf(bucket).get(key);
    if (!object) throw new S3Error(404, 'NoSuchKey', 'The specified key does not exist.', { Key: key });
    return object;
  };
  const uploadOf = (id: string | null) => {
    const upload = id ? uploads.get(id) : undefined;
    if (!upload || !id)
      throw new S3Error(404, 'NoSuchUpload', 'The specified upload does not exist.', { UploadId: id ?? '' });
    return upload;
  };
  const removeFile = (file: string) => fsp.rm(file, { force: true });

  /**
   * Streams a request body (decoding aws-chunked) to a new file, checking its length and the
   * checksum it declares (header or trailer): a mismatch is BadDigest and nothing is kept.
   */
  async function receiveBody(
    req: IncomingMessage,
    target: string,
    partsAlgorithm: ChecksumAlgorithm | null = null,
  ): Promise<StoredFile & { md5: Buffer }> {
    const file = path.join(root, randomUUID());
    const tap = new BodyTap({ sha256: checksums && (announcesSha256(req.headers) || partsAlgorithm === 'sha256') });
    const decoder = isAwsChunked(req.headers) ? new AwsChunkedDecoder() : null;
    const flip = corruptNext.delete(target) ? new FirstByteFlip() : null;
    try {
      const out = fs.createWriteStream(file, { highWaterMark: 1024 * 1024 });
      await pipeline([req, ...(decoder ? [decoder] : []), ...(flip ? [flip] : []), tap, out]);
      const length =
        req.headers['x-amz-decoded-content-length'] ?? (decoder ? undefined : req.headers['content-length']);
      if (length !== undefined && Number(length) !== tap.size) {
        throw new S3Error(400, 'IncompleteBody', `expected ${length} bytes, got ${tap.size}`);
      }
      const declared = (name: string) => decoder?.trailers.get(name) ?? (req.headers[name] as string | undefined);
      const checksum = checksums ? checkDeclaredChecksum(tap, declared) : null;
      const md5 = tap.md5();
      return { file, size: tap.size, md5, etag: `"${md5.toString('hex')}"`, checksum };
    } catch (error) {
      await removeFile(file);
      throw error;
    }
  }

  async function readSmallBody(req: IncomingMessage, limit = 1024 * 1024): Promise<string> {
    let text = '';
    for await (const chunk of req) {
      text += chunk;
      if (text.length > limit) throw new S3Error(400, 'MaxMessageLengthExceeded', 'request body too large');
    }
    return text;
  }

  /** Publishes a file under a key, replacing (and deleting the bytes of) any previous object. */
  function storeObject(bucket: string, key: string, stored: StoredFile, contentType: string): void {
    const objects = bucketOf(bucket);
    const previous = objects.get(key);
    objects.set(key, { ...stored, contentType, lastModified: new Date() });
    if (previous) void removeFile(previous.file);
  }

  async function handle(req: IncomingMessage, res: ServerResponse, op: (name: string) => void): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const q = url.searchParams;
    const [, rawBucket = '', ...rest] = url.pathname.split('/');
    const bucket = decodeURIComponent(rawBucket);
    const key = decodeURIComponent(rest.join('/'));
    const method = req.method ?? 'GET';
    const contentType = String(req.headers['content-type'] ?? 'binary/octet-stream');
    const xml = (body: string, status = 200) => {
      res.writeHead(status, { 'content-type': 'application/xml' }).end(body);
    };

    if (!bucket) throw new S3Error(405, 'MethodNotAllowed', 'ListBuckets is not supported');
    if (!key) {
      if (method === 'PUT') {
        op('CreateBucket');
        await readSmallBody(req);
        if (!buckets.has(bucket)) buckets.set(bucket, new Map());
        res.writeHead(200, { location: `/${bucket}` }).end();
      } else if (method === 'HEAD') {
        op('HeadBucket');
        bucketOf(bucket);
        res.writeHead(200).end();
      } else if (method === 'DELETE') {
        op('DeleteBucket');
        if (bucketOf(bucket).size > 0)
          throw new S3Error(409, 'BucketNotEmpty', 'The bucket you tried to delete is not empty');
        buckets.delete(bucket);
        res.writeHead(204).end();
      } else if (method === 'GET' && q.has('uploads')) {
        op('ListMultipartUploads');
        bucketOf(bucket);
        const items = [...uploads]
          .filter(([, u]) => u.bucket === bucket)
          .map(
            ([id, u]) =>
              `<Upload>${xmlFields({ Key: u.key, UploadId: id, Initiated: u.initiated.toISOString() })}</Upload>`,
          );
        xml(
          xmlDocument('ListMultipartUploadsResult', xmlFields({ Bucket: bucket, IsTruncated: false }) + items.join('')),
        );
      } else if (method === 'GET') {
        op('ListObjectsV2');
        const prefix = q.get('prefix') ?? '';
        const maxKeys = Math.min(Number(q.get('max-keys') ?? 1000), 1000);
        const token = q.get('continuation-token');
        const after = token ? Buffer.from(token, 'base64url').toString() : (q.get('start-after') ?? '');
        const all = [...bucketOf(bucket).keys()].filter((k) => k.startsWith(prefix) && k > after).sort();
        const page = all.slice(0, maxKeys);
        const truncated = all.length > page.length;
        const contents = page.map((k) => {
          const o = objectOf(bucket, k);
          const fields = {
            Key: k,
            LastModified: o.lastModified.toISOString(),
            ETag: o.etag,
            Size: o.size,
            StorageClass: 'STANDARD',
          };
          return `<Contents>${xmlFields(fields)}</Contents>`;
        });
        const next: Record<string, string> = truncated
          ? { NextContinuationToken: Buffer.from(page.at(-1) ?? '').toString('base64url') }
          : {};
        const head = xmlFields({
          Name: bucket,
          Prefix: prefix,
          KeyCount: page.length,
          MaxKeys: maxKeys,
          IsTruncated: truncated,
          ...next,
        });
        xml(xmlDocument('ListBucketResult', head + contents.join('')));
      } else {
        throw new S3Error(405, 'MethodNotAllowed', `${method} on a bucket is not supported`);
      }
      return;
    }

    if (method === 'PUT' && q.has('partNumber') && q.has('uploadId')) {
      op('UploadPart');
      const upload = uploadOf(q.get('uploadId'));
      const partNumber = Number(q.get('partNumber'));
      if (!Number.isInteger(partNumber) || partNumber < 1 || partNumber > 10_000) {
        throw new S3Error(400, 'InvalidArgument', 'Part number must be an integer between 1 and 10000');
      }
      const part = await receiveBody(req, `${bucket}/${key}`, upload.algorithm);
      if (!uploads.has(q.get('uploadId') ?? '')) {
        await removeFile(part.file); // aborted while this part was in flight
        throw new S3Error(404, 'NoSuchUpload', 'The specified upload does not exist.');
      }
      const previous = upload.parts.get(partNumber);
      upload.parts.set(partNumber, part);
      if (previous) await removeFile(previous.file);
      res.writeHead(200, { etag: part.etag, ...checksumHeaders(part.checksum) }).end();
    } else if (method === 'PUT') {
      if (req.headers['x-amz-copy-source']) throw new S3Error(501, 'NotImplemented', 'CopyObject is not supported');
      op('PutObject');
      bucketOf(bucket);
      const stored = await receiveBody(req, `${bucket}/${key}`);
      storeObject(bucket, key, stored, contentType);
      res.writeHead(200, { etag: stored.etag, ...checksumHeaders(stored.checksum) }).end();
    } else if (method === 'GET' || method === 'HEAD') {
      op(method === 'GET' ? 'GetObject' : 'HeadObject');
      const object = objectOf(bucket, key);
      const range = method === 'GET' ? parseRange(req.headers.range, object.size) : null;
      const headers: http.OutgoingHttpHeaders = {
        'content-type': object.contentType,
        'content-length': range ? range.end - range.start + 1 : object.size,
        etag: object.etag,
        'last-modified': object.lastModified.toUTCString(),
        'accept-ranges': 'bytes',
        // As S3: the kept checksum only when asked for, and never for a part of the object.
        ...(req.headers['x-amz-checksum-mode'] === 'ENABLED' && !range ? checksumHeaders(object.checksum) : {}),
      };
      if (range) headers['content-range'] = `bytes ${range.start}-${range.end}/${object.size}`;
      res.writeHead(range ? 206 : 200, headers);
      if (method === 'HEAD' || object.size === 0) {
        res.end();
        return;
      }
      await pipeline(fs.createReadStream(object.file, { ...range, highWaterMark: 1024 * 1024 }), res);
    } else if (method === 'DELETE' && q.has('uploadId')) {
      op('AbortMultipartUpload');
      const id = q.get('uploadId') ?? '';
      const upload = uploadOf(id);
      uploads.delete(id);
      await Promise.all([...upload.parts.values()].map((p) => removeFile(p.file)));
      res.writeHead(204).end();
    } else if (method === 'DELETE') {
      op('DeleteObject');
      const objects = bucketOf(bucket);
      const previous = objects.get(key);
      objects.delete(key);
      if (previous) await removeFile(previous.file);
      res.writeHead(204).end();
    } else if (method === 'POST' && q.has('uploads')) {
      op('CreateMultipartUpload');
      bucketOf(bucket);
      const uploadId = randomBytes(16).toString('hex');
      const named = String(req.headers['x-amz-checksum-algorithm'] ?? '').toLowerCase();
      const algorithm = checksums && (named === 'sha256' || named === 'crc32') ? named : null;
      uploads.set(uploadId, { bucket, key, contentType, initiated: new Date(), algorithm, parts: new Map() });
      if (algorithm) res.setHeader('x-amz-checksum-algorithm', algorithm.toUpperCase());
      xml(xmlDocument('InitiateMultipartUploadResult', xmlFields({ Bucket: bucket, Key: key, UploadId: uploadId })));
    } else if (method === 'POST' && q.has('uploadId')) {
      op('CompleteMultipartUpload');
      const id = q.get('uploadId') ?? '';
      const upload = uploadOf(id);
      const requested = parseCompleteParts(await readSmallBody(req));
      const parts = requested.map(({ partNumber, etag }, i) => {
        const part = upload.parts.get(partNumber);
        if (!part || part.etag.replace(/"/g, '') !== etag)
          throw new S3Error(400, 'InvalidPart', `part ${partNumber} not found`);
        if (i > 0 && partNumber <= (requested[i - 1]?.partNumber ?? 0))
          throw new S3Error(400, 'InvalidPartOrder', 'parts out of order');
        if (i < requested.length - 1 && part.size < MIN_PART_SIZE)
          throw new S3Error(400, 'EntityTooSmall', 'part too small');
        return part;
      });
      const file = path.join(root, randomUUID());
      const out = await fsp.open(file, 'w');
      try {
        for (const part of parts)
          for await (const chunk of fs.createReadStream(part.file, { highWaterMark: 1024 * 1024 }))
            await out.write(chunk);
      } finally {
        await out.close();
      }
      const etag = `"${createHash('md5')
        .update(Buffer.concat(parts.map((p) => p.md5)))
        .digest('hex')}-${parts.length}"`;
      const checksum = compositeOf(upload.algorithm, parts);
      uploads.delete(id);
      storeObject(
        bucket,
        key,
        { file, size: parts.reduce((n, p) => n + p.size, 0), etag, checksum },
        upload.contentType,
      );
      await Promise.all([...upload.parts.values()].map((p) => removeFile(p.file)));
      const checksumFields: Record<string, string> = checksum
        ? { [`Checksum${checksum.algorithm.toUpperCase()}`]: checksum.value, ChecksumType: checksum.type }
        : {};
      xml(
        xmlDocument(
          'CompleteMultipartUploadResult',
          xmlFields({ Location: `/${bucket}/${key}`, Bucket: bucket, Key: key, ETag: etag, ...checksumFields }),
        ),
      );
    } else {
      throw new S3Error(405, 'MethodNotAllowed', `${method} is not supported here`);
    }
  }

  const server = http.createServer((req, res) => {
    const requestId = randomBytes(8).toString('hex').toUpperCase();
    res.setHeader('x-amz-request-id', requestId);
    const op = (name: string) => operations.set(name, (operations.get(name) ?? 0) + 1);
    handle(req, res, op).catch((error: unknown) => {
      const s3 = error instanceof S3Error ? error : new S3Error(500, 'InternalError', String(error));
      if (res.headersSent) {
        res.destroy();
        return;
      }
      // Drain what the client is still sending so it reads the error instead of a reset.
      if (!req.readableEnded) req.resume();
      const body = req.method === 'HEAD' ? '' : errorXml(s3, requestId);
      res
        .writeHead(s3.status, { 'content-type': 'application/xml', 'content-length': Buffer.byteLength(body) })
        .end(body);
    });
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    endpoint: `http://127.0.0.1:${port}`,
    operations,
    pendingUploads: (bucket) =>
      [...uploads]
        .filter(([, u]) => !bucket || u.bucket === bucket)
        .map(([uploadId, u]) => ({ bucket: u.bucket, key: u.key, uploadId })),
    keys: (bucket) => [...(buckets.get(bucket)?.keys() ?? [])].sort(),
    corruptNextBody: (bucket, key) => {
      corruptNext.add(`${bucket}/${key}`);
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await fsp.rm(root, { recursive: true, force: true });
    },
  };
}

/** A multipart object's checksum: composite of its parts' when each was checked with the upload's algorithm. */
function compositeOf(algorithm: ChecksumAlgorithm | null, parts: StoredFile[]): StoredChecksum | null {
  if (!algorithm || !parts.every((p) => p.checksum?.algorithm === algorithm)) return null;
  return {
    algorithm,
    value: compositeChecksum(
      algorithm,
      parts.map((p) => p.checksum!.value),
    ),
    type: 'COMPOSITE',
  };
}

/** S3 error bodies have no namespace: `<Error><Code/><Message/>…<RequestId/></Error>`. */
function errorXml(error: S3Error, requestId: string): string {
  const fields = xmlFields({ Code: error.code, Message: error.message, ...error.extra, RequestId: requestId });
  return `<?xml version="1.0" encoding="UTF-8"?>\n<Error>${fields}</Error>`;
}
