import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { type AppError, errors } from '../../lib/errors.ts';
import { type BlobStore, BlobTooLargeError } from '../../providers/blobs/blob-store.ts';
import { ContentMismatchError, ContentSniffer, EmptyFileError } from '../../providers/files/content-sniffer.ts';
import { ACCEPTED_EXTENSIONS, type FileTypeRule, fileTypeRuleFor } from '../../providers/files/file-types.ts';
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
export type IntakeResult = { ok: true; file: StoredUpload } | { ok: false; filename: string; error: AppError; sha256: string | null };

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
    return { ok: false, filename: filename || part.filename, error, sha256: complete && partHash ? partHash.digest('hex') : null };
  };
  if (!filename) return refuse(errors.field('file', 'must have a file name'));
  const rule = fileTypeRuleFor(filename);
  if (!rule) {
    return refuse(
      errors.invalidFileType(`Files of this type are not accepted; accepted extensions: ${ACCEPTED_EXTENSIONS.join(', ')}`, { filename }),
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
  const forwardError = (error: Error) => sniffer.destroy(error);
  part.file.once('error', forwardError);
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
    if (error instanceof ContentMismatchError) return refuse(errors.invalidFileType(error.message, { filename, detected: error.detected }));
    if (error instanceof EmptyFileError) return refuse(errors.field('file', `${filename} is empty`));
    throw error;
  } finally {
    part.file.off('error', forwardError);
    part.file.off('data', hashChunk);
  }
}

function tooLarge(rule: FileTypeRule, filename: string): AppError {
  return errors.fileTooLarge(`${filename} is larger than ${rule.maxBytes / (1024 * 1024)} MB, the limit for .${rule.extension} files`, {
    filename,
    max_bytes: rule.maxBytes,
  });
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
