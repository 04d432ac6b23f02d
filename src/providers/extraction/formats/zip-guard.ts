import { createReadStream } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import { createInflateRaw, inflateRawSync } from 'node:zlib';
import { overBudget } from '../decode-budget.ts';
import { corrupt, ExtractionError, formatLabel } from '../extraction-error.ts';

/** Limits on what a DOCX, XLSX or PPTX may unpack to (checked before any library opens it). */
export const ZIP_LIMITS = {
  totalUncompressedBytes: 500 * 1024 * 1024,
  entries: 10_000,
  /** An entry bigger than `ratioMinBytes` may not be more than `ratio` times its compressed size. */
  ratio: 100,
  ratioMinBytes: 10 * 1024 * 1024,
} as const;

/** One entry of a zip's central directory. */
export interface ZipEntry {
  name: string;
  method: number;
  compressedSize: number;
  uncompressedSize: number;
  localHeaderOffset: number;
}

const EOCD = 0x06054b50;
const ZIP64_LOCATOR = 0x07064b50;
const ZIP64_EOCD = 0x06064b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;

/** The decode budget of the parts a reader parses whole. */
export interface PartBudget {
  /** The most an XML part (`.xml`, `.rels`) may unpack to. */
  maxPartBytes: number;
  /** Parts the reader streams instead of parsing whole (XLSX worksheets): not bound by `maxPartBytes`. */
  streamed?: (name: string) => boolean;
}

/**
 * Refuses a zip container that would unpack to too much: reads the central directory, checks the
 * declared sizes against ZIP_LIMITS and the XML parts the readers parse whole against the decode
 * budget, then inflates each entry into nothing to confirm that no entry unpacks to more than it
 * declares (the libraries that read the file afterwards trust the directory). Answers the entries.
 */
export async function guardZip(path: string, extension: string, budget: PartBudget): Promise<ZipEntry[]> {
  const entries = await readCentralDirectory(path, extension);
  const label = formatLabel(extension);
  let total = 0;
  for (const entry of entries) {
    total += entry.uncompressedSize;
    // mammoth, JSZip and the XML parsers hold a part whole, and the text and tree made of it besides.
    if (
      /\.(xml|rels)$/i.test(entry.name) &&
      entry.uncompressedSize > budget.maxPartBytes &&
      !budget.streamed?.(entry.name)
    ) {
      throw new ExtractionError(
        'too_large',
        overBudget(`the ${label} file`, `a part (${entry.name})`, budget.maxPartBytes),
      );
    }
    const ratio = entry.uncompressedSize / Math.max(1, entry.compressedSize);
    if (entry.uncompressedSize > ZIP_LIMITS.ratioMinBytes && ratio > ZIP_LIMITS.ratio) {
      throw new ExtractionError(
        'bomb',
        `the ${label} file looks like a zip bomb: ${entry.name} unpacks to ${mb(entry.uncompressedSize)} from ${mb(entry.compressedSize)} (more than ${ZIP_LIMITS.ratio}:1)`,
      );
    }
  }
  if (total > ZIP_LIMITS.totalUncompressedBytes) {
    throw new ExtractionError(
      'bomb',
      `the ${label} file unpacks to ${mb(total)}, more than the ${mb(ZIP_LIMITS.totalUncompressedBytes)} allowed`,
    );
  }
  await verifyEntries(path, extension, entries);
  return entries;
}

/** The entries of a zip's central directory (ZIP64 included). */
export async function readCentralDirectory(path: string, extension: string): Promise<ZipEntry[]> {
  const file = await open(path, 'r');
  try {
    const size = (await file.stat()).size;
    const tailLength = Math.min(size, 22 + 0xffff);
    const tail = await readAt(file, size - tailLength, tailLength);
    let at = -1;
    for (let i = tail.length - 22; i >= 0; i--) {
      if (tail.readUInt32LE(i) === EOCD) {
        at = i;
        break;
      }
    }
    if (at < 0) throw corrupt(extension, 'the zip directory is missing (the file is cut short or not a zip)');
    let count = tail.readUInt16LE(at + 10);
    let directorySize = tail.readUInt32LE(at + 12);
    let directoryOffset = tail.readUInt32LE(at + 16);
    if (count === 0xffff || directorySize === 0xffffffff || directoryOffset === 0xffffffff) {
      const locatorAt = size - tailLength + at - 20;
      const locator = locatorAt >= 0 ? await readAt(file, locatorAt, 20) : null;
      if (!locator || locator.readUInt32LE(0) !== ZIP64_LOCATOR)
        throw corrupt(extension, 'the ZIP64 directory locator is missing');
      const record = await readAt(file, Number(locator.readBigUInt64LE(8)), 56);
      if (record.length < 56 || record.readUInt32LE(0) !== ZIP64_EOCD)
        throw corrupt(extension, 'the ZIP64 directory is missing');
      count = Number(record.readBigUInt64LE(32));
      directorySize = Number(record.readBigUInt64LE(40));
      directoryOffset = Number(record.readBigUInt64LE(48));
    }
    if (count > ZIP_LIMITS.entries) {
      throw new ExtractionError(
        'bomb',
        `the ${formatLabel(extension)} file holds ${count} files, more than the ${ZIP_LIMITS.entries} allowed`,
      );
    }
    // A directory entry is at least 46 bytes; one far larger than its entries need is not a real one.
    if (directoryOffset + directorySize > size || directorySize > count * (46 + 3 * 0xffff)) {
      throw corrupt(extension, 'the zip directory points outside the file');
    }
    return parseEntries(await readAt(file, directoryOffset, directorySize), count, extension);
  } finally {
    await file.close();
  }
}

function parseEntries(directory: Buffer, count: number, extension: string): ZipEntry[] {
  const entries: ZipEntry[] = [];
  let at = 0;
  for (let i = 0; i < count; i++) {
    if (at + 46 > directory.length || directory.readUInt32LE(at) !== CENTRAL)
      throw corrupt(extension, 'the zip directory is damaged');
    const nameLength = directory.readUInt16LE(at + 28);
    const extraLength = directory.readUInt16LE(at + 30);
    const commentLength = directory.readUInt16LE(at + 32);
    const entry: ZipEntry = {
      name: directory.toString('utf8', at + 46, at + 46 + nameLength),
      method: directory.readUInt16LE(at + 10),
      compressedSize: directory.readUInt32LE(at + 20),
      uncompressedSize: directory.readUInt32LE(at + 24),
      localHeaderOffset: directory.readUInt32LE(at + 42),
    };
    applyZip64(entry, directory.subarray(at + 46 + nameLength, at + 46 + nameLength + extraLength));
    entries.push(entry);
    at += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

/** ZIP64 sizes and offset live in extra field 0x0001, in this order, for the fields set to 0xffffffff. */
function applyZip64(entry: ZipEntry, extra: Buffer): void {
  for (let at = 0; at + 4 <= extra.length; ) {
    const id = extra.readUInt16LE(at);
    const length = extra.readUInt16LE(at + 2);
    if (id === 0x0001) {
      let field = at + 4;
      const next = () => {
        if (field + 8 > at + 4 + length || field + 8 > extra.length) return null;
        const value = Number(extra.readBigUInt64LE(field));
        field += 8;
        return value;
      };
      if (entry.uncompressedSize === 0xffffffff) entry.uncompressedSize = next() ?? entry.uncompressedSize;
      if (entry.compressedSize === 0xffffffff) entry.compressedSize = next() ?? entry.compressedSize;
      if (entry.localHeaderOffset === 0xffffffff) entry.localHeaderOffset = next() ?? entry.localHeaderOffset;
      return;
    }
    at += 4 + length;
  }
}

/** Inflates each entry, keeping nothing, and refuses one that unpacks to more than it declares. */
async function verifyEntries(path: string, extension: string, entries: ZipEntry[]): Promise<void> {
  const label = formatLabel(extension);
  const file = await open(path, 'r');
  const size = (await file.stat()).size;
  try {
    for (const entry of entries) {
      if (entry.name.endsWith('/') && entry.uncompressedSize === 0) continue;
      const header = await readAt(file, entry.localHeaderOffset, 30);
      if (header.length < 30 || header.readUInt32LE(0) !== LOCAL)
        throw corrupt(extension, `the zip entry ${entry.name} is missing`);
      const start = entry.localHeaderOffset + 30 + header.readUInt16LE(26) + header.readUInt16LE(28);
      if (start + entry.compressedSize > size) throw corrupt(extension, `the zip entry ${entry.name} is cut short`);
      if (entry.method === 0) {
        if (entry.compressedSize !== entry.uncompressedSize)
          throw corrupt(extension, `the stored zip entry ${entry.name} has inconsistent sizes`);
        continue;
      }
      if (entry.method !== 8) {
        throw new ExtractionError(
          'unsupported',
          `the ${label} file uses zip compression method ${entry.method}, which cannot be read`,
        );
      }
      if (entry.compressedSize === 0) continue;
      const inflated = await inflatedSize(path, start, entry.compressedSize, entry.uncompressedSize);
      if (inflated > entry.uncompressedSize) {
        throw new ExtractionError(
          'bomb',
          `the ${label} file looks like a zip bomb: ${entry.name} unpacks to more than the ${mb(entry.uncompressedSize)} it declares`,
        );
      }
    }
  } finally {
    await file.close();
  }
}

/** How many bytes a deflated range unpacks to, stopping as soon as it passes `limit`. */
function inflatedSize(path: string, start: number, length: number, limit: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const input = createReadStream(path, { start, end: start + length - 1 });
    const inflate = createInflateRaw();
    let total = 0;
    const done = (error: Error | null) => {
      input.destroy();
      inflate.destroy();
      if (error) reject(error);
      else resolve(total);
    };
    inflate.on('data', (chunk: Buffer) => {
      total += chunk.length;
      if (total > limit) done(null);
    });
    inflate.on('end', () => done(null));
    inflate.on('error', (error) => done(new Error(`a zip entry does not inflate: ${error.message}`)));
    input.on('error', (error) => done(error));
    input.pipe(inflate);
  });
}

async function readAt(file: FileHandle, position: number, length: number): Promise<Buffer> {
  const buffer = Buffer.alloc(Math.max(0, length));
  const { bytesRead } = await file.read(buffer, 0, buffer.length, Math.max(0, position));
  return buffer.subarray(0, bytesRead);
}

function mb(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${Math.round(bytes / 1024 / 1024)} MB` : `${Math.ceil(bytes / 1024)} KB`;
}

/** One entry's bytes, unpacked (the entry is expected to have passed guardZip). */
export async function readZipEntry(path: string, entry: ZipEntry): Promise<Buffer> {
  const file = await open(path, 'r');
  try {
    const header = await readAt(file, entry.localHeaderOffset, 30);
    if (header.length < 30 || header.readUInt32LE(0) !== LOCAL)
      throw new Error(`the zip entry ${entry.name} is missing`);
    const start = entry.localHeaderOffset + 30 + header.readUInt16LE(26) + header.readUInt16LE(28);
    const raw = await readAt(file, start, entry.compressedSize);
    if (entry.method === 0) return raw;
    return inflateRawSync(raw, { maxOutputLength: Math.max(1, entry.uncompressedSize) });
  } finally {
    await file.close();
  }
}
