import { acceptName, MAX_NAME_LENGTH, sanitiseName, truncateName } from '../../lib/names.ts';

/** File names: cleaning what clients send, and naming files in download headers (RFC 6266). */

export const MAX_FILENAME_LENGTH = MAX_NAME_LENGTH;

/** A file name holds no path: neither separator, whatever system the client runs. */
const SEPARATORS = ['/', '\\'];

/**
 * Cleans a file name that came with a file (multipart uploads, batch uploads, imports): keeps the
 * last path segment (browsers and tools may send `C:\dir\file.pdf`), then the name rule's
 * cleaning (src/lib/names.ts: NFC; controls, text-direction and invisible characters dropped), and
 * shortens to 255 characters keeping the extension. Returns '' when nothing usable is left.
 */
export function sanitizeFilename(raw: string): string {
  let name = sanitiseName(raw.split(/[/\\]/).pop() ?? '');
  if (name.length > MAX_FILENAME_LENGTH) {
    const dot = name.lastIndexOf('.');
    const ext = dot > 0 && name.length - dot <= 16 ? name.slice(dot) : '';
    name = truncateName(name, MAX_FILENAME_LENGTH - ext.length).trimEnd() + ext;
  }
  return name;
}

/** A file name given in a JSON body (a rename), normalised; 400 on `field` when it breaks the name rule or holds a path. */
export function acceptFilename(raw: string, field = 'filename'): string {
  return acceptName(raw, field, SEPARATORS);
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
