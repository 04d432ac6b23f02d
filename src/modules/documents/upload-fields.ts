import { errors } from '../../lib/errors.ts';
import { sanitizeFilename } from '../../providers/files/filenames.ts';
import { normaliseTagNames } from './tags/tags.service.ts';

/** The non-file fields of an upload, as validated values. */
export interface UploadFields {
  folderId: string | null;
  enableAi: boolean;
  tags: string[];
  /** A custom name for the (single) uploaded file. */
  filename: string | null;
  /** `on_duplicate`: what to do with a file identical to a document the caller can see (null: not sent, i.e. `store`). */
  onDuplicate: OnDuplicate | null;
}

/** `store` (default): store it anyway and name the duplicate (`duplicate_of`); `skip`: answer the existing document, store nothing. */
export const ON_DUPLICATE = ['store', 'skip'] as const;
export type OnDuplicate = (typeof ON_DUPLICATE)[number];

const KNOWN = new Set(['folder_id', 'enable_ai', 'tags', 'tags[]', 'filename', 'on_duplicate']);

/** Collects text parts by name, in arrival order (a name may repeat). */
export class FieldBag {
  readonly #values = new Map<string, string[]>();

  add(name: string, value: string): void {
    const list = this.#values.get(name) ?? [];
    list.push(value);
    this.#values.set(name, list);
  }

  all(name: string): string[] {
    return this.#values.get(name) ?? [];
  }

  one(name: string): string | undefined {
    const values = this.all(name);
    if (values.length > 1) throw errors.field(name, 'must be given once');
    return values[0];
  }

  names(): string[] {
    return [...this.#values.keys()];
  }
}

/** docs/api-decisions.md §9: booleans accept true/false/1/0. */
export function parseBooleanField(name: string, value: string | undefined, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  const v = value.trim().toLowerCase();
  if (v === 'true' || v === '1') return true;
  if (v === 'false' || v === '0') return false;
  throw errors.field(name, 'must be true, false, 1 or 0');
}

/** docs/api-decisions.md §9: repeated `tags` parts, `tags[]` parts, one JSON array, or one comma-separated part. */
export function parseTagsField(values: string[]): string[] {
  const names: string[] = [];
  for (const value of values) {
    const trimmed = value.trim();
    if (trimmed.startsWith('[')) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(trimmed);
      } catch {
        throw errors.field('tags', 'is not a valid JSON array');
      }
      if (!Array.isArray(parsed) || !parsed.every((t) => typeof t === 'string'))
        throw errors.field('tags', 'must be an array of strings');
      names.push(...parsed);
    } else {
      names.push(...trimmed.split(','));
    }
  }
  return normaliseTagNames(names);
}

/** Validates the fields of an upload (files are handled as they stream). */
export function parseUploadFields(bag: FieldBag, options: { allowFilename: boolean }): UploadFields {
  for (const name of bag.names()) {
    if (!KNOWN.has(name) || (name === 'filename' && !options.allowFilename))
      throw errors.field(name, 'is not a known field');
  }
  const folderId = bag.one('folder_id')?.trim() || null;
  const rawName = bag.one('filename');
  let filename: string | null = null;
  if (rawName !== undefined && rawName.trim() !== '') {
    filename = sanitizeFilename(rawName);
    if (!filename) throw errors.field('filename', 'has no usable characters');
  }
  const onDuplicate = bag.one('on_duplicate')?.trim().toLowerCase() || null;
  if (onDuplicate !== null && !(ON_DUPLICATE as readonly string[]).includes(onDuplicate))
    throw errors.field('on_duplicate', `must be one of: ${ON_DUPLICATE.join(', ')}`);
  return {
    folderId,
    enableAi: parseBooleanField('enable_ai', bag.one('enable_ai'), true),
    tags: parseTagsField([...bag.all('tags'), ...bag.all('tags[]')]),
    filename,
    onDuplicate: onDuplicate as OnDuplicate | null,
  };
}
