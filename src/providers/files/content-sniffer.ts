import { Transform, type TransformCallback } from 'node:stream';
import { fileTypeFromBuffer } from 'file-type';
import type { FileTypeRule } from './file-types.ts';

/** How many leading bytes are inspected (file-type reads at most a few KB of headers). */
export const SAMPLE_BYTES = 16 * 1024;

/** The bytes do not look like the type their extension claims. */
export class ContentMismatchError extends Error {
  readonly detected: string | null;
  constructor(rule: FileTypeRule, detected: string | null) {
    super(
      rule.content === 'text'
        ? `The file is named .${rule.extension} but is not text (UTF-8 without NUL bytes)`
        : `The file is named .${rule.extension} but its content is ${detected ? `of type ${detected}` : 'not recognised as that type'}`,
    );
    this.name = 'ContentMismatchError';
    this.detected = detected;
  }
}

/** The file had no bytes at all. */
export class EmptyFileError extends Error {
  constructor() {
    super('The file is empty');
    this.name = 'EmptyFileError';
  }
}

/** Whether a leading sample is text: no NUL and valid UTF-8 (a sequence cut at the end is fine). */
export function looksLikeText(sample: Buffer): boolean {
  if (sample.includes(0)) return false;
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(sample, { stream: true });
    return true;
  } catch {
    return false;
  }
}

/** Checks a leading sample against a rule; returns the mismatch or null when it fits. */
export async function checkSample(rule: FileTypeRule, sample: Buffer): Promise<ContentMismatchError | null> {
  if (rule.content === 'text') return looksLikeText(sample) ? null : new ContentMismatchError(rule, null);
  const detected = await fileTypeFromBuffer(sample);
  if (detected && rule.content.includes(detected.ext)) return null;
  return new ContentMismatchError(rule, detected?.ext ?? null);
}

/**
 * A pass-through that holds back the first bytes of a file until they are checked against the
 * type its extension claims, then lets everything through. A mismatch fails the stream before a
 * single byte reaches the store, so a refused file never exists there even briefly.
 */
export class ContentSniffer extends Transform {
  readonly #rule: FileTypeRule;
  #held: Buffer[] = [];
  #heldBytes = 0;
  #checked = false;

  constructor(rule: FileTypeRule) {
    super({ highWaterMark: 1024 * 1024 });
    this.#rule = rule;
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    if (this.#checked) {
      callback(null, chunk);
      return;
    }
    this.#held.push(chunk);
    this.#heldBytes += chunk.length;
    if (this.#heldBytes < SAMPLE_BYTES) {
      callback();
      return;
    }
    this.#release(callback);
  }

  override _flush(callback: TransformCallback): void {
    if (this.#checked) {
      callback();
      return;
    }
    if (this.#heldBytes === 0) {
      callback(new EmptyFileError());
      return;
    }
    this.#release(callback);
  }

  #release(callback: TransformCallback): void {
    const held = Buffer.concat(this.#held);
    this.#held = [];
    checkSample(this.#rule, held.subarray(0, SAMPLE_BYTES)).then(
      (mismatch) => {
        if (mismatch) return callback(mismatch);
        this.#checked = true;
        callback(null, held);
      },
      (error: unknown) => callback(error as Error),
    );
  }
}
