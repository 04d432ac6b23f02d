import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { finished as onFinished, Transform, type TransformCallback } from 'node:stream';
import { finished } from 'node:stream/promises';
import { type AppError, errors } from '../../lib/errors.ts';
import { type BlobStore, BlobTooLargeError } from '../../providers/blobs/blob-store.ts';
import {
  ContentMismatchError,
  ContentSniffer,
  checkSample,
  EmptyFileError,
  SAMPLE_BYTES,
} from '../../providers/files/content-sniffer.ts';
import {
  ACCEPTED_EXTENSIONS,
  type FileTypeRule,
  fileTypeRuleFor,
  MAX_UPLOAD_BYTES,
} from '../../providers/files/file-types.ts';
import { sanitizeFilename } from '../../providers/files/filenames.ts';

/** A file stored in the blob store, not yet recorded in the database. */
export interface StoredUpload {
  key: string;
  filename: string;
  rule: FileTypeRule;
  size: number;
  sha256: string;
}

/** A refusal carries the SHA-256 of the whole part when it was read to its end (request fingerprints). */
export type IntakeResult =
  | { ok: true; file: StoredUpload }
  | { ok: false; filename: string; error: AppError; sha256: string | null };

/**
 * Streams one uploaded file into the blob store under `key`, checking its type by extension and
 * content and its size against the type's limit and the remaining quota as the bytes pass.
 * A refused file leaves nothing stored and its part is read to the end (so the next part of a
 * batch can follow); a broken request (client gone) rejects with its error.
 */
export async function intakeFile(
  blobs: BlobStore,
  part: { filename: string; file: Readable & { truncated?: boolean } },
  options: {
    key: string;
    quotaBytes: number | null;
    quotaError: () => AppError;
    /** Read a refused file to its end (batches, to reach the next file); a single upload answers at once. */
    drainRefused: boolean;
  },
): Promise<IntakeResult> {
  const filename = sanitizeFilename(part.filename);
  // In a batch a refused file is read to its end and still needs a content hash (request
  // fingerprints); a single upload answers a refusal at once, so it skips this second hash.
  const partHash = options.drainRefused ? createHash('sha256') : null;
  const hashChunk = (chunk: Buffer) => partHash?.update(chunk);
  if (partHash) part.file.on('data', hashChunk);
  const refuse = async (error: AppError): Promise<IntakeResult> => {
    if (!options.drainRefused) return { ok: false, filename: filename || part.filename, error, sha256: null };
    const complete = await drain(part.file);
    return {
      ok: false,
      filename: filename || part.filename,
      error,
      sha256: complete && partHash ? partHash.digest('hex') : null,
    };
  };
  if (!filename) return refuse(errors.field('file', 'must have a file name'));
  const rule = fileTypeRuleFor(filename);
  if (!rule) {
    return refuse(
      errors.invalidFileType(
        `Files of this type are not accepted; accepted extensions: ${ACCEPTED_EXTENSIONS.join(', ')}`,
        { filename },
      ),
    );
  }
  const quotaBound = options.quotaBytes !== null && options.quotaBytes < rule.maxBytes;
  const maxBytes = quotaBound ? options.quotaBytes! : rule.maxBytes;
  if (maxBytes <= 0) return refuse(options.quotaError());

  const sniffer = new ContentSniffer(rule);
  // The sniffer can fail (a refused type) before the store has started reading it: a store may await
  // (directories, a connection) first. Without a listener of its own, pipe() would rethrow that
  // error as an uncaught exception; the store still sees it, as the stream's stored error.
  sniffer.on('error', () => {});
  // pipe() does not forward errors: a broken request must fail the store, which then keeps nothing.
  const stopForwarding = forwardFailure(part.file, sniffer);
  part.file.pipe(sniffer);
  try {
    const stored = await blobs.put(options.key, sniffer, { maxBytes, contentType: rule.mediaType });
    if (part.file.truncated) {
      await blobs.delete(options.key);
      return refuse(tooLarge(rule, filename));
    }
    return { ok: true, file: { key: options.key, filename, rule, size: stored.size, sha256: stored.sha256 } };
  } catch (error) {
    if (part.file.destroyed && part.file.errored) throw part.file.errored;
    if (error instanceof BlobTooLargeError) return refuse(quotaBound ? options.quotaError() : tooLarge(rule, filename));
    if (error instanceof ContentMismatchError)
      return refuse(errors.invalidFileType(error.message, { filename, detected: error.detected }));
    if (error instanceof EmptyFileError) return refuse(errors.field('file', `${filename} is empty`));
    throw error;
  } finally {
    stopForwarding();
    part.file.off('data', hashChunk);
  }
}

/**
 * Fails `target` when the part fails: an error, or a close before its end (the client went away).
 * `stream.finished` also reports a part that failed before this was attached -- a client that left
 * while the upload awaited its orphan guard (a database round trip) destroyed the part then, and an
 * `'error'` listener added afterwards never fires: the store would wait on the pipe forever, the
 * handler never answer and the request's Idempotency-Key stay claimed until its lock lapsed.
 */
function forwardFailure(source: Readable, target: Transform): () => void {
  return onFinished(source, { writable: false }, (error) => {
    if (error) target.destroy(error);
  });
}

function tooLarge(rule: FileTypeRule, filename: string): AppError {
  return errors.fileTooLarge(
    `${filename} is larger than ${rule.maxBytes / (1024 * 1024)} MB, the limit for .${rule.extension} files`,
    {
      filename,
      max_bytes: rule.maxBytes,
    },
  );
}

/** Reads and discards the rest of a part so the parser moves on to the next one. */
async function drain(file: Readable): Promise<boolean> {
  if (file.readableEnded) return true;
  if (file.destroyed) return false;
  file.unpipe();
  file.resume();
  return finished(file).then(
    () => true,
    () => false,
  );
}

/**
 * Whether a part's own file name can type the file. A `Blob` appended to a browser `FormData`
 * arrives named `blob`, a generated client's may have no name at all: such a part takes the
 * upload's `filename` field instead. A name with an extension, accepted or not, speaks for itself.
 */
export function hasUsableName(partFilename: string): boolean {
  const name = sanitizeFilename(partFilename);
  return name !== '' && /\.[^.]+$/.test(name);
}

/** A file stored before its type is known: its part had no usable name, and a later field names it. */
export interface UntypedUpload {
  key: string;
  size: number;
  sha256: string;
  /** The leading bytes, to check against the type the name gives (as ContentSniffer would have). */
  sample: Buffer;
}

/**
 * Streams a file whose type is not known yet into the blob store, within the largest type limit
 * (or the remaining quota) and keeping its first bytes; `typeUntypedUpload` then checks it against
 * the name the upload's `filename` field gives, once every part has arrived.
 */
export async function intakeUntyped(
  blobs: BlobStore,
  part: { file: Readable & { truncated?: boolean } },
  options: { key: string; quotaBytes: number | null; quotaError: () => AppError },
): Promise<UntypedUpload> {
  const quotaBound = options.quotaBytes !== null && options.quotaBytes < MAX_UPLOAD_BYTES;
  const maxBytes = quotaBound ? options.quotaBytes! : MAX_UPLOAD_BYTES;
  if (maxBytes <= 0) throw options.quotaError();
  const tap = new SampleTap(SAMPLE_BYTES);
  const stopForwarding = forwardFailure(part.file, tap);
  part.file.pipe(tap);
  try {
    const stored = await blobs.put(options.key, tap, { maxBytes, contentType: 'application/octet-stream' });
    if (part.file.truncated || stored.size === 0) {
      await blobs.delete(options.key);
      throw stored.size === 0 ? errors.field('file', 'is empty') : tooLargeOverall();
    }
    return { key: options.key, size: stored.size, sha256: stored.sha256, sample: tap.sample() };
  } catch (error) {
    if (part.file.destroyed && part.file.errored) throw part.file.errored;
    if (error instanceof BlobTooLargeError) throw quotaBound ? options.quotaError() : tooLargeOverall();
    throw error;
  } finally {
    stopForwarding();
  }
}

/** Types a file stored by `intakeUntyped` by `filename`: extension, size limit and content, as an upload checks them. */
export async function typeUntypedUpload(file: UntypedUpload, filename: string): Promise<StoredUpload> {
  const rule = fileTypeRuleFor(filename);
  if (!rule) {
    throw errors.invalidFileType(
      `Files of this type are not accepted; accepted extensions: ${ACCEPTED_EXTENSIONS.join(', ')}`,
      { filename, field: 'filename' },
    );
  }
  if (file.size > rule.maxBytes) throw tooLarge(rule, filename);
  const mismatch = await checkSample(rule, file.sample);
  if (mismatch)
    throw errors.invalidFileType(mismatch.message, { filename, field: 'filename', detected: mismatch.detected });
  return { key: file.key, filename, rule, size: file.size, sha256: file.sha256 };
}

function tooLargeOverall(): AppError {
  return errors.fileTooLarge(
    `The file is larger than ${MAX_UPLOAD_BYTES / (1024 * 1024)} MB, the largest upload accepted`,
    { max_bytes: MAX_UPLOAD_BYTES },
  );
}

/** A pass-through that keeps a copy of the first `limit` bytes. */
class SampleTap extends Transform {
  readonly #limit: number;
  readonly #kept: Buffer[] = [];
  #size = 0;
  constructor(limit: number) {
    super({ highWaterMark: 1024 * 1024 });
    this.#limit = limit;
  }
  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    if (this.#size < this.#limit) {
      const part = chunk.subarray(0, this.#limit - this.#size);
      this.#kept.push(Buffer.from(part));
      this.#size += part.length;
    }
    callback(null, chunk);
  }
  sample(): Buffer {
    return Buffer.concat(this.#kept);
  }
}
