/** Why an extraction failed, stable for callers to branch on. */
export type ExtractionErrorCode =
  | 'corrupt' // the bytes are not a readable file of the type (damaged, truncated, another format)
  | 'too_large' // above the type's size limit, or needs more memory than a thread may use
  | 'timeout' // took longer than the per-file limit
  | 'unsupported' // a type or variant that cannot be extracted (unknown extension, password protection)
  | 'bomb' // decompresses or decodes to far more than it is (zip bomb, giant image)
  | 'aborted' // the caller's signal aborted it
  | 'unreadable' // the file to extract could not be read from disk
  | 'crashed'; // a part of the machinery failed: a thread died, OCR or ffmpeg could not run

const CODES: ReadonlySet<string> = new Set<ExtractionErrorCode>([
  'corrupt',
  'too_large',
  'timeout',
  'unsupported',
  'bomb',
  'aborted',
  'unreadable',
  'crashed',
]);

/** An extraction failure with a message a person can act on ("the DOCX file is corrupt or truncated: ..."). */
export class ExtractionError extends Error {
  readonly code: ExtractionErrorCode;

  constructor(code: ExtractionErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ExtractionError';
    this.code = code;
  }
}

/** Whether a code received from a thread is one of ours. */
export function isExtractionErrorCode(code: unknown): code is ExtractionErrorCode {
  return typeof code === 'string' && CODES.has(code);
}

/** How a format is named in messages: "the DOCX file", "the Markdown file". */
export function formatLabel(extension: string): string {
  const labels: Record<string, string> = { jpg: 'JPEG', jpeg: 'JPEG', tif: 'TIFF', txt: 'text', md: 'Markdown' };
  return labels[extension] ?? extension.toUpperCase();
}

/** The error for bytes that are not a readable file of the type. */
export function corrupt(extension: string, detail: string, cause?: unknown): ExtractionError {
  return new ExtractionError('corrupt', `the ${formatLabel(extension)} file is corrupt or truncated: ${detail}`, {
    cause,
  });
}
