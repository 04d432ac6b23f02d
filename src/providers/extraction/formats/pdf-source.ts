import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { getResolvedPDFJS } from 'unpdf';
import { corrupt, ExtractionError } from '../extraction-error.ts';

type PdfJs = Awaited<ReturnType<typeof getResolvedPDFJS>>;
export type PdfDocument = Awaited<ReturnType<PdfJs['getDocument']>['promise']>;

/**
 * A damaged PDF (no usable cross-reference table) is rebuilt by pdf.js from the whole file, which it
 * scans as one string: the file, that string and the pieces it is built from are all held at once,
 * about 3 times the file (a 50 MB file: +165 MiB in the thread). Above this size a damaged PDF is
 * not rebuilt but fails.
 */
export const MAX_REPAIRED_PDF_BYTES = 32 * 1024 * 1024;
/** The end of the file searched for `startxref` (the specification puts it in the last 1 KB; writers append junk). */
const TAIL_BYTES = 64 * 1024;
/** With `ranges`, pdf.js reads an intact file in pieces of this size, each when a page needs it. */
const RANGE_CHUNK_BYTES = 64 * 1024;

/** What reading a PDF takes besides its source (pdf.js's DocumentInitParameters). */
export interface PdfOptions {
  maxImageSize: number;
  /**
   * Read an intact file by ranges, as pages ask for them, instead of whole. pdf.js keeps what it
   * read in a buffer of the file's size whose untouched pages cost nothing, so memory follows what
   * was read, not the file's size (which `rangeBytes` tells, for a caller that reopens a long file).
   * Each object it fetches is loaded whole, through a copy: a file that is one huge image costs
   * that image twice for a moment (36 MB: process peak 200 MiB, against 163 read whole).
   */
  ranges?: boolean;
}

/** An open PDF. */
export interface OpenPdf {
  pdf: PdfDocument;
  /** Bytes read by ranges since it was opened (0 when it was read whole). */
  rangeBytes(): number;
  /** Destroys the document; must be called when done. */
  close(): Promise<void>;
}

/**
 * Opens a PDF for pdf.js. A damaged one (no usable cross-reference table) is handed over whole for
 * pdf.js to rebuild, up to MAX_REPAIRED_PDF_BYTES; above that it fails having read only its end.
 * The file is open only while it is read (a thread terminated mid-file must not leak a descriptor,
 * which would also keep a removed temp file on disk). `close` must be called when done.
 */
export async function openPdf(path: string, options: PdfOptions): Promise<OpenPdf> {
  const pdfjs = await getResolvedPDFJS();
  const common = { maxImageSize: options.maxImageSize, isEvalSupported: false, useSystemFonts: true, verbosity: 0 };
  const { source, ranges } = withFile(path, (fd) => {
    const size = fstatSync(fd).size;
    const intact = hasCrossReference(fd, size);
    if (intact && options.ranges) {
      const ranges = new (fileRangeTransport(pdfjs))(path, size);
      return {
        ranges,
        source: { range: ranges, rangeChunkSize: RANGE_CHUNK_BYTES, disableAutoFetch: true, disableStream: true },
      };
    }
    if (!intact && size > MAX_REPAIRED_PDF_BYTES) {
      const mb = (bytes: number) => Math.ceil(bytes / 1024 / 1024);
      throw corrupt(
        'pdf',
        `it has no valid cross-reference table, and a damaged PDF over ${mb(MAX_REPAIRED_PDF_BYTES)} MB is not rebuilt (this one is ${mb(size)} MB)`,
      );
    }
    // pdf.js takes these bytes over (transferred to its worker side, not copied).
    return { ranges: null, source: { data: read(fd, 0, size) } };
  });
  const task = pdfjs.getDocument({ ...common, ...source });
  try {
    const pdf = await task.promise;
    return { pdf, rangeBytes: () => ranges?.bytesRead ?? 0, close: () => task.destroy() };
  } catch (error) {
    // A failed load keeps pdf.js's worker side, and the file's bytes with it, until destroyed.
    await task.destroy().catch(() => {});
    if ((error as { name?: string } | null)?.name === 'PasswordException')
      throw new ExtractionError('unsupported', 'the PDF file is password-protected');
    throw error;
  }
}

/**
 * Whether the file ends as an intact PDF does: a `startxref` near the end pointing at a
 * cross-reference table (`xref`) or stream (`N G obj`). pdf.js reads such a file by its table;
 * one without has to be rebuilt from all its bytes.
 */
export function hasCrossReference(fd: number, size: number): boolean {
  const tailStart = Math.max(0, size - TAIL_BYTES);
  const tail = Buffer.from(read(fd, tailStart, size - tailStart)).toString('latin1');
  const at = tail.lastIndexOf('startxref');
  if (at < 0) return false;
  const offset = /^startxref\s+(\d+)/.exec(tail.slice(at))?.[1];
  if (offset === undefined) return false;
  const position = Number(offset);
  if (!Number.isSafeInteger(position) || position >= size) return false;
  const target = Buffer.from(read(fd, position, Math.min(64, size - position))).toString('latin1');
  return /^\s*(xref|\d+\s+\d+\s+obj)\b/.test(target);
}

/** A PDFDataRangeTransport over a file: each range pdf.js asks for is read there and then. */
function fileRangeTransport(pdfjs: PdfJs) {
  return class FileRangeTransport extends pdfjs.PDFDataRangeTransport {
    readonly #path: string;
    bytesRead = 0;
    constructor(path: string, length: number) {
      super(length, null);
      this.#path = path;
    }
    // Synchronous: the thread has nothing else to do meanwhile, and a read error fails the call
    // that asked for the range instead of leaving pdf.js waiting for bytes that never come.
    override requestDataRange(begin: number, end: number): void {
      this.bytesRead += end - begin;
      this.onDataRange(
        begin,
        withFile(this.#path, (fd) => read(fd, begin, end - begin)),
      );
    }
  };
}

function withFile<T>(path: string, use: (fd: number) => T): T {
  const fd = openSync(path, 'r');
  try {
    return use(fd);
  } finally {
    closeSync(fd);
  }
}

function read(fd: number, position: number, length: number): Uint8Array {
  const bytes = new Uint8Array(length);
  let done = 0;
  while (done < length) {
    const n = readSync(fd, bytes, done, length - done, position + done);
    if (n === 0) throw new ExtractionError('unreadable', 'the PDF file changed while it was read');
    done += n;
  }
  return bytes;
}
