import { globToRegExp } from '../../lib/sandbox/glob.ts';
import { fileTypeRuleFor } from '../../providers/files/file-types.ts';
import { type ExportFormats, importedFileName, isUnexportableNative, retrievalFor } from './export-formats.ts';
import type { ScanFilters } from './project-config.ts';

/** A file as the scan sees it. */
export interface ScannedFile {
  name: string;
  /** Its path from the scanned folder, `/`-separated, the file's name last. */
  path: string;
  mimeType: string;
  /** Null for Google-native files (no size until exported). */
  size: number | null;
  /** False for files shared with the user by someone else. */
  ownedByMe: boolean;
}

/** Why a scanned file is not imported (the item's `skip_reason`). */
export type SkipReason =
  | 'unsupported_type'
  | 'shared'
  | 'type_not_included'
  | 'type_excluded'
  | 'too_large'
  | 'excluded_pattern';

/** A project's filters, compiled once per scan. */
export class ScanFilter {
  readonly #filters: ScanFilters;
  readonly #formats: ExportFormats;
  readonly #excluded: ((path: string) => boolean) | null;

  constructor(filters: ScanFilters, formats: ExportFormats) {
    this.#filters = filters;
    this.#formats = formats;
    // `~$*` or `*.tmp` (no slash) match a file's name anywhere; `**/drafts/**` (with a slash) match
    // its path, which starts with the scanned folder's name. The globs are the user's: compiled for
    // RE2 (lib/sandbox/glob.ts), so a file with a long name cannot make a pattern backtrack.
    const names = filters.exclude_patterns.filter((p) => !p.includes('/')).map(globToRegExp);
    const paths = filters.exclude_patterns.filter((p) => p.includes('/')).map(globToRegExp);
    this.#excluded =
      names.length + paths.length > 0
        ? (path) =>
            names.some((re) => re.test(path.slice(path.lastIndexOf('/') + 1))) || paths.some((re) => re.test(path))
        : null;
  }

  /** Null when the file is imported, else why it is skipped. */
  skipReason(file: ScannedFile): SkipReason | null {
    if (isUnexportableNative(file.mimeType)) return 'unsupported_type';
    if (!this.#filters.include_shared && !file.ownedByMe) return 'shared';
    if (this.#excluded?.(file.path)) return 'excluded_pattern';
    const retrieval = retrievalFor(file.mimeType, this.#formats);
    const finalName = importedFileName(file.name, file.mimeType, retrieval);
    const types = typeNames(finalName, file.mimeType, retrieval.kind === 'export' ? retrieval.mimeType : null);
    const { include_types: include, exclude_types: exclude, max_file_size_bytes: maxSize } = this.#filters;
    if (include.length > 0 && !include.some((t) => matchesType(t, types))) return 'type_not_included';
    if (exclude.some((t) => matchesType(t, types))) return 'type_excluded';
    if (maxSize !== null && file.size !== null && file.size > maxSize) return 'too_large';
    // The library accepts a fixed set of types (an exported .odt is not among them): skip rather than fail.
    if (!fileTypeRuleFor(finalName)) return 'unsupported_type';
    return null;
  }
}

/** The names a file's type goes by: its final extension, its Drive media type, and its export type. */
function typeNames(
  finalName: string,
  mimeType: string,
  exportMimeType: string | null,
): { extension: string; mimeTypes: string[] } {
  const dot = finalName.lastIndexOf('.');
  const extension = dot > 0 ? finalName.slice(dot + 1).toLowerCase() : '';
  return { extension, mimeTypes: [mimeType.toLowerCase(), ...(exportMimeType ? [exportMimeType] : [])] };
}

/** A filter entry is an extension (`pdf`, `.pdf`) or a media type (`application/pdf`, `image/*`). */
function matchesType(entry: string, types: { extension: string; mimeTypes: string[] }): boolean {
  const value = entry.trim().toLowerCase();
  if (!value.includes('/')) return value.replace(/^\./, '') === types.extension;
  if (value.endsWith('/*')) return types.mimeTypes.some((m) => m.startsWith(value.slice(0, -1)));
  return types.mimeTypes.includes(value);
}
