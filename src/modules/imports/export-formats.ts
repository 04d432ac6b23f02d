import mime from 'mime-types';
import { fileTypeRuleFor } from '../../providers/files/file-types.ts';

// Spec "Import (migration) project": Google-native files are exported on import, per kind, in the
// format the project's `export_formats` names (contract §12), defaulting as the spec's table.

export const NATIVE_KINDS = ['document', 'spreadsheet', 'presentation', 'drawing'] as const;
export type NativeKind = (typeof NATIVE_KINDS)[number];

/** Drive's media types of the native kinds. */
export const NATIVE_MIME_TYPES: Record<NativeKind, string> = {
  document: 'application/vnd.google-apps.document',
  spreadsheet: 'application/vnd.google-apps.spreadsheet',
  presentation: 'application/vnd.google-apps.presentation',
  drawing: 'application/vnd.google-apps.drawing',
};

export const FOLDER_MIME_TYPE = 'application/vnd.google-apps.folder';
export const SHORTCUT_MIME_TYPE = 'application/vnd.google-apps.shortcut';
const GOOGLE_APPS_PREFIX = 'application/vnd.google-apps.';

/** The media type Drive's files.export is asked for, by format (extension). */
const EXPORT_MIME_TYPES: Record<string, string> = {
  pdf: 'application/pdf',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  odt: 'application/vnd.oasis.opendocument.text',
  txt: 'text/plain',
  html: 'text/html',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  ods: 'application/vnd.oasis.opendocument.spreadsheet',
  csv: 'text/csv',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  odp: 'application/vnd.oasis.opendocument.presentation',
  png: 'image/png',
  svg: 'image/svg+xml',
};

/** The formats each kind may be exported as; the first is the default (spec table). */
export const EXPORT_FORMATS: Record<NativeKind, readonly string[]> = {
  document: ['pdf', 'docx', 'odt', 'txt', 'html'],
  spreadsheet: ['xlsx', 'ods', 'csv', 'pdf'],
  presentation: ['pdf', 'pptx', 'odp'],
  drawing: ['pdf', 'png', 'svg'],
};

export type ExportFormats = Record<NativeKind, string>;

export const DEFAULT_EXPORT_FORMATS: ExportFormats = {
  document: 'pdf',
  spreadsheet: 'xlsx',
  presentation: 'pdf',
  drawing: 'pdf',
};

/** The native kind of a Drive media type, or null for an ordinary file. */
export function nativeKindOf(mimeType: string): NativeKind | null {
  return NATIVE_KINDS.find((kind) => NATIVE_MIME_TYPES[kind] === mimeType) ?? null;
}

/** Google-native types that cannot be exported (forms, sites, maps...): they are skipped. */
export function isUnexportableNative(mimeType: string): boolean {
  return (
    mimeType.startsWith(GOOGLE_APPS_PREFIX) &&
    nativeKindOf(mimeType) === null &&
    mimeType !== FOLDER_MIME_TYPE &&
    mimeType !== SHORTCUT_MIME_TYPE
  );
}

/** How a file is fetched: as stored, or exported to `mimeType` and named with `extension`. */
export type Retrieval = { kind: 'download' } | { kind: 'export'; mimeType: string; extension: string };

export function retrievalFor(mimeType: string, formats: ExportFormats): Retrieval {
  const kind = nativeKindOf(mimeType);
  if (kind === null) return { kind: 'download' };
  const extension = formats[kind];
  return { kind: 'export', mimeType: EXPORT_MIME_TYPES[extension]!, extension };
}

/** The document's file name: an exported file gets its format's extension. */
export function importedFileName(name: string, mimeType: string, retrieval: Retrieval): string {
  if (retrieval.kind === 'download') {
    // A Drive name need not carry an extension; the stored type decides the document's.
    const extension = fileTypeRuleFor(name) ? false : mime.extension(mimeType);
    return extension ? `${name}.${extension}` : name;
  }
  const suffix = `.${retrieval.extension}`;
  return name.toLowerCase().endsWith(suffix) ? name : `${name}${suffix}`;
}
