import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileTypeRuleFor } from '../../../src/providers/files/file-types.ts';
import { after, before } from 'node:test';
import {
  createExtractor,
  type ExtractionInput,
  ExtractionError,
  type Extractor,
  type ExtractorOptions,
} from '../../../src/providers/extraction/extractor.ts';

/** A temp directory for one test file's fixtures, removed by `cleanup`. */
export async function fixtureDir(): Promise<{
  write(name: string, bytes: Buffer | string): Promise<ExtractionInput>;
  cleanup(): Promise<void>;
}> {
  const dir = await mkdtemp(join(tmpdir(), 'extraction-test-'));
  return {
    async write(name, bytes) {
      const path = join(dir, name);
      await writeFile(path, bytes);
      const extension = name.slice(name.lastIndexOf('.') + 1).toLowerCase();
      return { path, extension, mediaType: fileTypeRuleFor(name)?.mediaType ?? 'application/octet-stream' };
    },
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
}

/** Asserts a promise rejects with an ExtractionError of `code` whose message matches `message`. */
export async function rejectsWith(promise: Promise<unknown>, code: string, message?: RegExp): Promise<ExtractionError> {
  try {
    await promise;
  } catch (error) {
    if (!(error instanceof ExtractionError))
      throw new Error(`expected an ExtractionError, got ${String(error)}`, { cause: error });
    if (error.code !== code)
      throw new Error(`expected code ${code}, got ${error.code}: ${error.message}`, { cause: error });
    if (message && !message.test(error.message))
      throw new Error(`message ${JSON.stringify(error.message)} does not match ${message}`);
    return error;
  }
  throw new Error(`expected a rejection with code ${code}, but it resolved`);
}

/** The share of `expected` words found in `text` (case-insensitive, punctuation ignored). */
export function wordRecall(expected: string, text: string): number {
  const words = (s: string) =>
    s
      .toLowerCase()
      .split(/[^\p{L}\p{N}]+/u)
      .filter(Boolean);
  const found = new Set(words(text));
  const wanted = words(expected);
  return wanted.filter((w) => found.has(w)).length / wanted.length;
}

/** Bytes that look random but are the same on every run (a linear congruential generator). */
export function noise(length: number, seed = 1): Buffer {
  const out = Buffer.alloc(length);
  let state = seed >>> 0;
  for (let i = 0; i < length; i++) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    out[i] = state >>> 24;
  }
  return out;
}

/**
 * One extractor (one thread) and one fixture directory for the calling `describe`, made before its
 * tests and closed after them. Read `extractor` and `files` inside tests (they exist from `before` on).
 */
export function extractionFixture(options: ExtractorOptions = {}): {
  readonly extractor: Extractor;
  readonly files: Awaited<ReturnType<typeof fixtureDir>>;
} {
  let extractor: Extractor | null = null;
  let files: Awaited<ReturnType<typeof fixtureDir>> | null = null;
  before(async () => {
    extractor = createExtractor({ threads: 1, ...options });
    files = await fixtureDir();
  });
  after(async () => {
    await extractor?.close();
    await files?.cleanup();
  });
  return {
    get extractor() {
      if (!extractor) throw new Error('the extractor exists from before() on');
      return extractor;
    },
    get files() {
      if (!files) throw new Error('the fixture directory exists from before() on');
      return files;
    },
  };
}
