/** HTTP range and validator handling for downloads (RFC 9110 §13, §14): document files and tenant exports. */

export type RangeDecision =
  | { kind: 'full' }
  | { kind: 'partial'; start: number; end: number }
  | { kind: 'unsatisfiable' };

/**
 * Decides how to answer a `Range` header for a representation of `size` bytes. One range is
 * served as 206; several (or a header this server does not understand) get the whole file, which
 * RFC 9110 allows; a range starting past the end is 416.
 */
export function decideRange(header: string | undefined, size: number): RangeDecision {
  if (!header) return { kind: 'full' };
  const match = /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header);
  if (!match) return { kind: 'full' };
  const [, first = '', last = ''] = match;
  if (first === '' && last === '') return { kind: 'full' };
  if (first === '') {
    const suffix = Number(last);
    if (suffix === 0 || size === 0) return { kind: 'unsatisfiable' };
    return { kind: 'partial', start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(first);
  const end = last === '' ? Number.MAX_SAFE_INTEGER : Number(last);
  // An invalid range (last before first) is ignored, as if there were no Range header.
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || end < start) return { kind: 'full' };
  if (start >= size) return { kind: 'unsatisfiable' };
  return { kind: 'partial', start, end: Math.min(end, size - 1) };
}

function opaqueTags(header: string): string[] {
  return header.split(',').map((t) => t.trim().replace(/^W\//, ''));
}

/** `If-None-Match` matches the current strong ETag (weak comparison, as RFC 9110 §13.1.2 says). */
export function noneMatch(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  return opaqueTags(header).includes(etag);
}

/** Whether a `Range` should be honoured given `If-Range` (strong comparison; dates are not used). */
export function ifRangeAllows(header: string | undefined, etag: string): boolean {
  if (!header) return true;
  return header.trim() === etag;
}
