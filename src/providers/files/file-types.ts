/** The file types the service accepts (spec, Limits: per-type file size limits and AI processing). */

const MB = 1024 * 1024;

export type FileCategory = 'pdf' | 'word' | 'text' | 'image' | 'spreadsheet' | 'powerpoint' | 'audio' | 'video';

export interface FileTypeRule {
  /** Lower-case extension without the dot. */
  extension: string;
  category: FileCategory;
  /** The media type stored and served for this extension. */
  mediaType: string;
  maxBytes: number;
  /**
   * What the bytes must look like: `text` (valid UTF-8, no NUL in the first chunk) or the
   * `file-type` detections that count as a match (`cfb` is any OLE container, `zip` any zip).
   */
  content: 'text' | readonly string[];
}

const rule = (
  extension: string,
  category: FileCategory,
  mediaType: string,
  maxMb: number,
  content: FileTypeRule['content'],
): FileTypeRule => ({
  extension,
  category,
  mediaType,
  maxBytes: maxMb * MB,
  content,
});

const RULES: FileTypeRule[] = [
  rule('pdf', 'pdf', 'application/pdf', 500, ['pdf']),
  rule('docx', 'word', 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', 100, ['docx', 'zip']),
  rule('doc', 'word', 'application/msword', 100, ['cfb', 'doc']),
  rule('txt', 'text', 'text/plain', 50, 'text'),
  rule('md', 'text', 'text/markdown', 50, 'text'),
  rule('jpg', 'image', 'image/jpeg', 50, ['jpg']),
  rule('jpeg', 'image', 'image/jpeg', 50, ['jpg']),
  rule('png', 'image', 'image/png', 50, ['png']),
  rule('tiff', 'image', 'image/tiff', 50, ['tif']),
  rule('tif', 'image', 'image/tiff', 50, ['tif']),
  rule('webp', 'image', 'image/webp', 50, ['webp']),
  rule('xlsx', 'spreadsheet', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', 100, [
    'xlsx',
    'zip',
  ]),
  rule('xls', 'spreadsheet', 'application/vnd.ms-excel', 100, ['cfb', 'xls']),
  rule('csv', 'spreadsheet', 'text/csv', 100, 'text'),
  rule('pptx', 'powerpoint', 'application/vnd.openxmlformats-officedocument.presentationml.presentation', 100, [
    'pptx',
    'zip',
  ]),
  rule('ppt', 'powerpoint', 'application/vnd.ms-powerpoint', 100, ['cfb', 'ppt']),
  rule('mp3', 'audio', 'audio/mpeg', 200, ['mp3']),
  rule('wav', 'audio', 'audio/wav', 200, ['wav']),
  rule('m4a', 'audio', 'audio/mp4', 200, ['m4a', 'mp4', 'm4b']),
  rule('mp4', 'video', 'video/mp4', 500, ['mp4', 'm4v', 'mov']),
  rule('mov', 'video', 'video/quicktime', 500, ['mov', 'mp4', 'qt']),
];

const BY_EXTENSION = new Map(RULES.map((r) => [r.extension, r]));

/** The largest file any type accepts (the multipart parser's hard ceiling). */
export const MAX_UPLOAD_BYTES = Math.max(...RULES.map((r) => r.maxBytes));

/** Every accepted extension, for error messages and docs. */
export const ACCEPTED_EXTENSIONS: readonly string[] = RULES.map((r) => r.extension);

/** Lower-case extension of a filename without the dot, or '' when it has none. */
export function extensionOf(filename: string): string {
  const dot = filename.lastIndexOf('.');
  return dot <= 0 || dot === filename.length - 1 ? '' : filename.slice(dot + 1).toLowerCase();
}

/** The rule of an accepted extension (`pdf`, without the dot), or null. */
export function fileTypeRuleForExtension(extension: string): FileTypeRule | null {
  return BY_EXTENSION.get(extension.toLowerCase()) ?? null;
}

/** The rule for a filename's extension, or null when the type is not accepted. */
export function fileTypeRuleFor(filename: string): FileTypeRule | null {
  return BY_EXTENSION.get(extensionOf(filename)) ?? null;
}

/**
 * Why `name` cannot be the name of a document of `mediaType`, or null when it can: a custom name
 * or a rename keeps an extension of the document's type or none, so no document is ever named as a type
 * its bytes are not (a text file named `.pdf`, or `.exe`).
 */
export function nameTypeProblem(name: string, mediaType: string): string | null {
  const extension = /\.([^.\s]+)$/.exec(name)?.[1]?.toLowerCase();
  // A name without an extension ("Q3 report", "notes v1.2") claims no type: it is a display name.
  if (extension === undefined || /^\d+$/.test(extension)) return null;
  if (fileTypeRuleFor(name)?.mediaType === mediaType) return null;
  const fitting = RULES.filter((r) => r.mediaType === mediaType).map((r) => `.${r.extension}`);
  return `must end with ${fitting.join(' or ')} (the type of the file, ${mediaType}) or have no extension`;
}

/**
 * Resolves a `file_type` list filter: a media type as is; an accepted extension (`pdf`, `.pdf`) to
 * its media type, so that spellings of one type find each other (`jpeg` finds `.jpg` files, `tif`
 * finds `.tiff`); any other extension as is.
 */
export function fileTypeFilter(value: string): { mediaType: string } | { extension: string } {
  const v = value.trim().toLowerCase();
  if (v.includes('/')) return { mediaType: v };
  const extension = v.replace(/^\./, '');
  const known = BY_EXTENSION.get(extension);
  return known ? { mediaType: known.mediaType } : { extension };
}
