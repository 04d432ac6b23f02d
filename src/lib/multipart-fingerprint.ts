import { createHash } from 'node:crypto';

/** A multipart body as the fingerprint sees it: text fields by name (values in order) and files by content hash. */
export interface MultipartFingerprintInput {
  fields: Record<string, string[]>;
  files: { field: string; filename: string; sha256: string }[];
}

/**
 * The fingerprint of a multipart body: SHA-256 over the fields (sorted by name, values in arrival
 * order) and the files (in arrival order: field name, file name, SHA-256 of the content).
 */
export function multipartFingerprint(input: MultipartFingerprintInput): string {
  const fields = Object.keys(input.fields)
    .sort()
    .map((name) => [name, input.fields[name]!]);
  const files = input.files.map((f) => [f.field, f.filename, f.sha256]);
  return sha256(JSON.stringify({ multipart: { fields, files } }));
}

/**
 * Collects a multipart body's parts as they stream by, then `digest()`: the one fingerprint of
 * both an upload's first request (the upload service, which stores the parts) and its repeats
 * under the same Idempotency-Key (the idempotency layer, which only hashes them), so the two can
 * never disagree. Field values are taken as the handler sees them (JSON parts as their JSON text).
 */
export class MultipartFingerprintCollector {
  // A Map: a part may be named anything (`__proto__` included).
  readonly #fields = new Map<string, string[]>();
  readonly #files: MultipartFingerprintInput['files'] = [];
  field(name: string, value: string): void {
    const values = this.#fields.get(name) ?? [];
    values.push(value);
    this.#fields.set(name, values);
  }
  file(field: string, filename: string, sha256Hex: string): void {
    this.#files.push({ field, filename, sha256: sha256Hex });
  }
  digest(): string {
    return multipartFingerprint({ fields: Object.fromEntries(this.#fields), files: this.#files });
  }
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
