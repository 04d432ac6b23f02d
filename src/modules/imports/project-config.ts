import { DEFAULT_EXPORT_FORMATS, type ExportFormats } from './export-formats.ts';

/** Contract §12: what a scan keeps or skips. */
export interface ScanFilters {
  include_types: string[];
  exclude_types: string[];
  /** Null: no limit. */
  max_file_size_bytes: number | null;
  exclude_patterns: string[];
  include_shared: boolean;
}

/** The project's configuration as stored (credentials are kept apart, sealed). */
export interface ProjectConfig {
  folder_ids: string[];
  target_folder_id: string | null;
  enable_ai: boolean;
  filters: ScanFilters;
  export_formats: ExportFormats;
}

/** Contract §12: an access token, and what refreshing it needs. */
export interface DriveCredentials {
  access_token: string;
  refresh_token?: string | undefined;
  client_id?: string | undefined;
  client_secret?: string | undefined;
}

/** The `config` of a create or update request, every field optional (updates are partial, §9). */
export interface ConfigInput {
  folder_ids?: string[];
  credentials?: DriveCredentials;
  target_folder_id?: string | null;
  enable_ai?: boolean;
  filters?: Partial<ScanFilters>;
  export_formats?: Partial<ExportFormats>;
}

export const DEFAULT_FILTERS: ScanFilters = {
  include_types: [],
  exclude_types: [],
  max_file_size_bytes: null,
  exclude_patterns: [],
  include_shared: false,
};

/** Applies a (partial) input over the current configuration; nested objects merge field by field. */
export function mergeConfig(current: ProjectConfig | null, input: ConfigInput): ProjectConfig {
  const base = current ?? {
    folder_ids: [],
    target_folder_id: null,
    enable_ai: true,
    filters: DEFAULT_FILTERS,
    export_formats: DEFAULT_EXPORT_FORMATS,
  };
  return {
    folder_ids: input.folder_ids ? [...new Set(input.folder_ids)] : base.folder_ids,
    target_folder_id: input.target_folder_id === undefined ? base.target_folder_id : input.target_folder_id,
    enable_ai: input.enable_ai ?? base.enable_ai,
    filters: { ...base.filters, ...input.filters },
    export_formats: { ...base.export_formats, ...input.export_formats },
  };
}

/** Contract §12: `configured` when there are credentials and folders to scan, else `draft`. */
export function isComplete(config: ProjectConfig, hasCredentials: boolean): boolean {
  return hasCredentials && config.folder_ids.length > 0;
}

/**
 * Whether an update changes what a scan finds (then an earlier scan is stale). Export formats count:
 * a native file's type at scan is its export type (`include_types` / `exclude_types`, and formats
 * the library refuses are skipped as `unsupported_type`).
 */
export function changesScan(before: ProjectConfig, after: ProjectConfig): boolean {
  const scanned = (c: ProjectConfig) => JSON.stringify([c.folder_ids, c.filters, c.export_formats]);
  return scanned(before) !== scanned(after);
}
