import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The layout of a tenant archive (docs/tenant-export.md): a POSIX tar (ustar/pax), entries in
 * this order:
 *
 *   manifest.json              format, the source, totals and one line per entry (size, sha256)
 *   tenant.json                the tenant (name, subdomain, tier, settings, CORS origins)
 *   <table>.ndjson             one per resource of ARCHIVE_RESOURCES, a row per line
 *   files/<document id>        each document's original bytes (its current version)
 *   versions/<version id>      every earlier (not current) version's bytes
 *   thumbnails/<document id>   rendered thumbnails, when there is one
 *
 * The manifest comes first so an import knows every entry's checksum, and the bytes it will
 * store, before it reads the rest (a tier's storage is checked up front).
 */
export const ARCHIVE_FORMAT = 'docuvault-tenant-archive';
export const ARCHIVE_VERSION = 1;

export interface ManifestEntry {
  name: string;
  size: number;
  sha256: string;
  /** NDJSON entries: rows in it. */
  rows?: number;
}

export interface Manifest {
  format: typeof ARCHIVE_FORMAT;
  version: number;
  created_at: string;
  /** The schema the rows follow (the newest migration of the exporting service). */
  schema: string;
  tenant: { id: string; name: string; subdomain: string; tier: string };
  /** `file_bytes`: every stored byte, documents' and earlier versions' (what the tier's storage must hold). */
  totals: { documents: number; file_bytes: number; entries: number; versions?: number };
  entries: ManifestEntry[];
  /** What the archive does not carry, and why (resources.ts NOT_PORTABLE). */
  not_portable: Record<string, string>;
  /** API keys that existed, by name and prefix (never the secret). */
  api_keys: { name: string; prefix: string; environment: string }[];
  /**
   * HMAC-SHA256 of the manifest (this field empty) with the exporting service's own secret: an
   * import on the same service (or a copy of its database) recognises it, and only then keeps
   * the users' password hashes.
   */
  signature: string;
}

/** The bytes signed: the manifest as JSON with an empty signature. */
function signedText(manifest: Manifest): string {
  return JSON.stringify({ ...manifest, signature: '' });
}

export function signManifest(manifest: Manifest, secret: Buffer): string {
  return createHmac('sha256', secret).update(signedText(manifest)).digest('hex');
}

export function manifestSignedBy(manifest: Manifest, secret: Buffer): boolean {
  const expected = Buffer.from(signManifest(manifest, secret), 'hex');
  const given = Buffer.from(typeof manifest.signature === 'string' ? manifest.signature : '', 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** The server secret (src/db/server-secrets.ts) behind manifest signatures. */
export const SIGNING_SECRET_NAME = 'tenant_archive_signing';

export const fileEntry = (documentId: string) => `files/${documentId}`;
export const versionEntry = (versionId: string) => `versions/${versionId}`;
export const thumbnailEntry = (documentId: string) => `thumbnails/${documentId}`;
export const rowsEntry = (table: string) => `${table}.ndjson`;

/** Structural check of a manifest read from an archive; the reason when it is not one. */
export function manifestProblem(value: unknown): string | null {
  if (!value || typeof value !== 'object') return 'manifest.json is not a JSON object';
  const m = value as Partial<Manifest>;
  if (m.format !== ARCHIVE_FORMAT) return `manifest.json is not a ${ARCHIVE_FORMAT}`;
  if (m.version !== ARCHIVE_VERSION)
    return `archive format version ${String(m.version)} is not supported (this service reads version ${ARCHIVE_VERSION})`;
  if (!m.tenant || typeof m.tenant.subdomain !== 'string' || typeof m.tenant.name !== 'string')
    return 'manifest.json names no tenant';
  if (
    !Array.isArray(m.entries) ||
    !m.entries.every(
      (e) => e && typeof e.name === 'string' && Number.isSafeInteger(e.size) && /^[0-9a-f]{64}$/.test(String(e.sha256)),
    )
  ) {
    return 'manifest.json lists entries without name, size or sha256';
  }
  if (!m.totals || !Number.isSafeInteger(m.totals.file_bytes)) return 'manifest.json has no totals';
  return null;
}
