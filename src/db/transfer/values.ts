import { hash } from 'node:crypto';

/*
 * Values between the dialects. The service's schema stores portable types (text, bigint epoch
 * milliseconds, integer 0/1 flags, JSON as text, embeddings as blob/bytea), so most values pass as
 * they are; the conversions below cover what the two dialects may declare differently, chosen by
 * the *target* column's declared type: booleans, timestamps, JSON, binary and pgvector vectors.
 */

const isBytes = (v: unknown): v is Uint8Array => v instanceof Uint8Array;

/** A float32 little-endian blob (how the service stores embeddings) as pgvector's text form. */
function blobToVector(bytes: Uint8Array): string {
  const floats = new Float32Array(bytes.byteLength / 4);
  new Uint8Array(floats.buffer).set(bytes.subarray(0, floats.length * 4));
  return `[${Array.from(floats).join(',')}]`;
}

/** pgvector's text form `[1,2.5,...]` as a float32 little-endian blob. */
function vectorToBlob(text: string): Uint8Array {
  const values = text
    .replace(/^\[|\]$/g, '')
    .split(',')
    .filter(Boolean)
    .map(Number);
  return new Uint8Array(new Float32Array(values).buffer);
}

/** A value read from SQLite, as PostgreSQL takes it for a column of `type`. */
export function toPostgres(value: unknown, type: string): unknown {
  if (value === null || value === undefined) return null;
  if (type === 'boolean') return value === true || value === 1 || value === '1' || value === 'true' || value === 't';
  if (type === 'bytea')
    return isBytes(value) ? Buffer.from(value.buffer, value.byteOffset, value.byteLength) : Buffer.from(String(value));
  if (type.startsWith('vector')) return isBytes(value) ? blobToVector(value) : String(value);
  if (type.startsWith('timestamp') || type === 'date')
    return typeof value === 'number' ? new Date(value).toISOString() : String(value);
  if (type === 'json' || type === 'jsonb') return typeof value === 'string' ? value : JSON.stringify(value);
  if (type === 'text' || type.startsWith('character'))
    return typeof value === 'string' ? value : isBytes(value) ? Buffer.from(value).toString('utf8') : String(value);
  return value;
}

const COPY_ESCAPES: Record<string, string> = { '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/**
 * A value converted by `toPostgres`, as one field of `COPY … FROM STDIN` text format: `\N` for null,
 * backslash, newline, carriage return and tab escaped, bytes as the escaped hex form `\\x…`.
 */
export function copyField(value: unknown): string {
  if (value === null || value === undefined) return '\\N';
  if (typeof value === 'boolean') return value ? 't' : 'f';
  if (isBytes(value)) return `\\\\x${Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('hex')}`;
  return String(value).replace(/[\\\n\r\t]/g, (c) => COPY_ESCAPES[c]!);
}

/** SQLite type affinity (section 3.1 of its datatype page): INTEGER affinity for any declared type containing "int". */
const integerAffinity = (type: string) => type.includes('int');

/** A value read from PostgreSQL (as node-postgres parses it), as SQLite stores it in a column of `type`. */
export function toSqlite(value: unknown, type: string): unknown {
  if (value === null || value === undefined) return null;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (value instanceof Date) return integerAffinity(type) ? value.getTime() : value.toISOString();
  if (isBytes(value)) return value;
  if (typeof value === 'string' && type === 'blob' && /^\[[-0-9.eE,\s]*\]$/.test(value)) return vectorToBlob(value);
  if (typeof value === 'object') return JSON.stringify(value);
  return value;
}

/** JSON with keys sorted, so a `jsonb` (which reorders keys) and the text it came from compare equal. */
function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const o = value as Record<string, unknown>;
    return `{${Object.keys(o)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${stableJson(o[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * One value in a form both dialects agree on: numbers and flags as decimals, bytes as base64,
 * dates as epoch milliseconds, JSON columns with sorted keys. A tag keeps `1` apart from `'1'`
 * only where the dialects cannot differ (null vs empty string).
 */
export function canonical(value: unknown, type: string): string {
  if (value === null || value === undefined) return '\u0000';
  if (typeof value === 'boolean') return value ? '1' : '0';
  if (typeof value === 'number' || typeof value === 'bigint') return String(value);
  if (value instanceof Date) return String(value.getTime());
  if ((type.startsWith('timestamp') || type === 'date') && typeof value === 'string') return String(Date.parse(value));
  if (isBytes(value)) return `b:${Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64')}`;
  if (type === 'json' || type === 'jsonb') {
    try {
      return stableJson(typeof value === 'string' ? JSON.parse(value) : value);
    } catch {
      return String(value);
    }
  }
  if (typeof value === 'object') return stableJson(value);
  return String(value);
}

const MASK = (1n << 64n) - 1n;

/**
 * A table's checksum: the sum (mod 2^64) of each row's SHA-256 prefix. Independent of row order,
 * because the two dialects sort text differently (byte order vs the collation), and additive, so
 * the copied part survives an interruption as one number in the transfer state.
 */
export function rowDigest(values: readonly unknown[], columns: readonly { type: string }[]): bigint {
  let text = '';
  for (let i = 0; i < columns.length; i++) text += `${canonical(values[i], columns[i]!.type)}\u0001`;
  const digest = hash('sha256', text, 'buffer');
  return digest.readBigUInt64BE(0);
}

export const addDigest = (sum: bigint, digest: bigint): bigint => (sum + digest) & MASK;
