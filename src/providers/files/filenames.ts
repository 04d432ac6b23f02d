/** File names: cleaning what clients send, and naming files in download headers (RFC 6266). */

export const MAX_FILENAME_LENGTH = 255;

// C0 controls, DEL, C1 controls, and the Unicode line/paragraph separators and bidi overrides
// that can make a name display as something it is not.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const UNSAFE_CHARS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/**
 * Cleans a client-supplied file name: keeps the last path segment (browsers and tools may send
 * `C:\dir\file.pdf`), drops control characters, trims, and shortens to 255 characters keeping the
 * extension. Returns '' when nothing usable is left.
 */
export function sanitizeFilename(raw: string): string {
  const lastSegment = raw.split(/[/\\]/).pop() ?? '';
  let name = lastSegment.replace(UNSAFE_CHARS, '').trim();
  if (name === '.' || name === '..') return '';
  if (name.length > MAX_FILENAME_LENGTH) {
    const dot = name.lastIndexOf('.');
    const ext = dot > 0 && name.length - dot <= 16 ? name.slice(dot) : '';
    name = name.slice(0, MAX_FILENAME_LENGTH - ext.length) + ext;
  }
  return name;
}

/** Why a name given in a JSON body is not acceptable as is, or null when it is. */
export function filenameProblem(name: string): string | null {
  if (name.trim().length === 0) return 'must not be empty';
  if (name.length > MAX_FILENAME_LENGTH) return `must be at most ${MAX_FILENAME_LENGTH} characters`;
  if (/[/\\]/.test(name)) return 'must not contain path separators';
  if (new RegExp(UNSAFE_CHARS.source).test(name)) return 'must not contain control characters';
  if (name === '.' || name === '..') return 'is not a file name';
  return null;
}

/** RFC 5987 ext-value encoding: UTF-8, percent-encoding everything but attr-chars. */
function encodeExtValue(value: string): string {
  return encodeURIComponent(value).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/**
 * `Content-Disposition` for a download: an ASCII fallback `filename="..."` (non-ASCII, quotes
 * and backslashes replaced) and the exact name as `filename*=UTF-8''...` (RFC 6266 §4.3).
 */
export function contentDisposition(filename: string, type: 'attachment' | 'inline' = 'attachment'): string {
  const fallback = filename.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_') || 'download';
  return `${type}; filename="${fallback}"; filename*=UTF-8''${encodeExtValue(filename)}`;
}
