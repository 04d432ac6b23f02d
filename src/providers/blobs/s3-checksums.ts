import type { ExpectedBytes } from './blob-store.ts';

// S3 additional checksums (x-amz-checksum-sha256): the server hashes what it receives, refuses a
// body that differs from the checksum sent (BadDigest) and keeps the checksum with the object.

/** The checksum parameters of a PutObject/UploadPart request for bytes that must be `expected`. */
export interface ChecksumParams {
  ChecksumSHA256?: string;
  ChecksumAlgorithm?: 'SHA256';
}

/**
 * A body smaller than a part goes in one PUT carrying the expected SHA-256 itself, so the server
 * checks the whole object against the recorded hash. A larger (or unknown-size) body goes up in
 * parts whose SHA-256 the SDK computes and the server checks; the whole is then compared with the
 * hash computed in the process over the same bytes.
 */
export function checksumParams(expected: ExpectedBytes | undefined, partSize: number): ChecksumParams {
  if (!expected) return {};
  if (expected.size !== undefined && expected.size < partSize)
    return { ChecksumSHA256: Buffer.from(expected.sha256, 'hex').toString('base64') };
  return { ChecksumAlgorithm: 'SHA256' };
}

/**
 * Whether the server's answer to a put shows it checked SHA-256 checksums: the whole object's,
 * equal to what was sent, or a checksum of checked parts (`<base64>-<parts>`). A server without
 * additional checksums answers none.
 */
export function serverChecked(answered: string | undefined, sentSha256: string): boolean {
  if (answered === undefined) return false;
  return isOfParts(answered) || hexOfBase64(answered) === sentSha256;
}

/** The whole object's SHA-256 (hex) from a HEAD answer; undefined for none or a checksum of parts. */
export function wholeObjectSha256(answered: string | undefined): string | undefined {
  return answered === undefined || isOfParts(answered) ? undefined : hexOfBase64(answered);
}

function isOfParts(checksum: string): boolean {
  return /-\d+$/.test(checksum);
}

function hexOfBase64(value: string): string {
  return Buffer.from(value, 'base64').toString('hex');
}
