/** The extraction provider's public types (extractor.ts builds one; the thread side speaks in them). */

/** A file to extract: local bytes and the accepted type they were stored as. */
export interface ExtractionInput {
  /** A local file with the bytes. */
  path: string;
  /** Lower-case extension without the dot, as in file-types.ts ('pdf', 'docx', ...). */
  extension: string;
  mediaType: string;
  signal?: AbortSignal;
  /** Told how many of the file's pages (PDF pages, TIFF pages) are read, as they are; formats without pages never call it. */
  onProgress?: (progress: { done: number; total: number }) => void;
}

/** The text of a file and what it says about itself. */
export interface ExtractedContent {
  /** The whole text, whitespace normalised, pages joined by "\n\n". */
  text: string;
  /** Per page (PDF), slide (PPTX, PPT), sheet (XLSX, XLS; CSV as one), or null where the format has none. */
  pages: string[] | null;
  /**
   * What the file says about itself: author, title, created (ISO 8601), pages, width, height,
   * duration_seconds, codec, sample_rate, slides, sheets (comma list), encoding; `ocr: true` when
   * OCR made the text; `truncated: true` when the text was cut at the size limit or time ran out.
   */
  metadata: Record<string, string | number | boolean>;
  /** Set for audio and video: the text has to come from transcription. */
  media: { kind: 'audio' | 'video' } | null;
}

/** What this machine can do beyond plain extraction. */
/** Which OCR engine reads images: the system's `tesseract` binary, or tesseract.js (WebAssembly, shipped with npm install). */
export type OcrEngineName = 'tesseract' | 'tesseract.js';

/** `auto`: the system's tesseract when it is on the PATH with English data, tesseract.js otherwise. */
export type OcrPreference = 'auto' | OcrEngineName;

export interface Capabilities {
  /** Text from images and scanned PDF pages (tesseract.js with the bundled English data). */
  ocr: boolean;
  /** Which engine reads them: the system's `tesseract` when on the PATH with English data, else tesseract.js; null without OCR. */
  ocrEngine: OcrEngineName | null;
  /** Audio tracks of videos, for transcription (ffmpeg on the PATH). */
  ffmpeg: boolean;
}

/** Text extraction for every accepted file type, in worker threads, guarded against hostile files. */
export interface Extractor {
  extract(input: ExtractionInput): Promise<ExtractedContent>;
  /**
   * For video: the audio track in a temp WAV file (16 kHz mono) for transcription, or null when
   * ffmpeg is absent; the caller deletes the file. For audio: the input path as is.
   */
  audioTrack(input: ExtractionInput): Promise<string | null>;
  capabilities(): Capabilities;
  close(): Promise<void>;
}

export interface ExtractorOptions {
  /** Extraction threads; default one per core but one, at least 1 and at most 4. */
  threads?: number;
  /** Time allowed per file; default 120 s. Time waiting for the shared OCR engine is not counted. */
  timeoutMs?: number;
  /**
   * Each page or image whose OCR starts gets at least this long (default 30 s): a long scan goes on
   * past `timeoutMs` page by page, and one page that takes longer fails the file.
   */
  ocrPageTimeoutMs?: number;
  /**
   * The most one file may take, however many pages it OCRs (default 20 min): a page is started only
   * if its allowance still fits before it; the rest are skipped (`ocr_skipped_pages`).
   */
  maxTimeoutMs?: number;
  /** V8 heap limit of each thread in MB; default 512. */
  memoryMb?: number;
  /**
   * The decode budget in MB (default 64): the most one decompressed stream, zip part read whole or
   * image decoded whole may unpack to; past it the file fails `too_large`. A thread may hold twice
   * this and 64 MB outside its heap (`bufferLimitFor`) before it is stopped.
   */
  maxDecodedMb?: number;
  /** Images one tesseract worker reads before it is replaced, which returns its memory; default 10. */
  ocrRecycleAfter?: number;
  /** Which OCR engine to use (default `auto`: the system's `tesseract` when present, else tesseract.js). */
  ocrEngine?: OcrPreference;
  /** System tesseract processes reading pages at once (default: two, one on a one-core machine); tesseract.js reads one. */
  ocrProcesses?: number | undefined;
}
