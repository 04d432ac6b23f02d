import { Readable } from 'node:stream';
import { auth as googleAuth, drive_v3 } from '@googleapis/drive';
import type { OutboundHttp } from '../../providers/outbound/outbound-http.ts';
import { toDriveError } from './drive-errors.ts';
import type { DriveCredentials } from './project-config.ts';

/** One entry of a folder listing, as the scan needs it. */
export interface DriveEntry {
  id: string;
  name: string;
  mimeType: string;
  size: number | null;
  ownedByMe: boolean;
  /** Set on shortcuts: what they point at. */
  shortcut: { targetId: string; targetMimeType: string } | null;
}

export interface DriveSettings {
  apiUrl: string;
  tokenUrl: string;
  http: OutboundHttp;
}

const LIST_FIELDS =
  'nextPageToken, files(id, name, mimeType, size, ownedByMe, shortcutDetails(targetId, targetMimeType))';
const PAGE_SIZE = 1000;

/**
 * Google Drive v3 through the official client (`@googleapis/drive` with google-auth-library's
 * OAuth2 client), pointed at GOOGLE_DRIVE_API_URL and GOOGLE_OAUTH_TOKEN_URL, every request sent
 * through the guarded outbound client's fetch (private addresses refused unless allowed). The
 * client's own retries are off: the importer retries files on its own schedule. A 401 refreshes the
 * access token once with the refresh token and retries (the OAuth2 client does this);
 * `onRefresh` is told the new token so it can be stored.
 */
export class DriveSession {
  readonly #drive: drive_v3.Drive;
  readonly #signal: AbortSignal | undefined;

  constructor(
    settings: DriveSettings,
    credentials: DriveCredentials,
    options: { onRefresh?: (accessToken: string) => void; signal?: AbortSignal } = {},
  ) {
    const fetchImplementation = settings.http.fetch as unknown as typeof fetch;
    const oauth = new googleAuth.OAuth2({
      clientId: credentials.client_id,
      clientSecret: credentials.client_secret,
      endpoints: { oauth2TokenUrl: settings.tokenUrl },
      transporterOptions: { fetchImplementation },
      forceRefreshOnFailure: true,
    });
    oauth.setCredentials({ access_token: credentials.access_token, refresh_token: credentials.refresh_token ?? null });
    oauth.on('tokens', (tokens) => {
      if (tokens.access_token) options.onRefresh?.(tokens.access_token);
    });
    this.#drive = new drive_v3.Drive({ rootUrl: settings.apiUrl, auth: oauth, retry: false, fetchImplementation });
    this.#signal = options.signal;
  }

  /** A folder's own record (name, type): 404 when it does not exist or is not visible. */
  async folder(id: string): Promise<DriveEntry> {
    try {
      const res = await this.#drive.files.get(
        {
          fileId: id,
          fields: 'id, name, mimeType, size, ownedByMe, shortcutDetails(targetId, targetMimeType)',
          supportsAllDrives: true,
        },
        this.#options(),
      );
      return toEntry(res.data);
    } catch (error) {
      throw toDriveError(error, `read folder ${id}`);
    }
  }

  /** Every entry directly inside a folder, page by page (`q`, `fields`, `pageSize`, `pageToken`). */
  async *children(folderId: string, includeShared: boolean): AsyncGenerator<DriveEntry[]> {
    let pageToken: string | undefined;
    do {
      let page: drive_v3.Schema$FileList;
      try {
        const res = await this.#drive.files.list(
          {
            q: `'${folderId.replace(/['\\]/g, '\\$&')}' in parents and trashed = false`,
            fields: LIST_FIELDS,
            pageSize: PAGE_SIZE,
            ...(pageToken ? { pageToken } : {}),
            // Shared drives only when shared content is wanted (contract §12 `include_shared`).
            ...(includeShared ? { supportsAllDrives: true, includeItemsFromAllDrives: true } : {}),
          },
          this.#options(),
        );
        page = res.data;
      } catch (error) {
        throw toDriveError(error, `list folder ${folderId}`);
      }
      yield (page.files ?? []).map(toEntry);
      pageToken = page.nextPageToken ?? undefined;
    } while (pageToken);
  }

  /** The file's bytes as stored (`files.get?alt=media`), streamed. */
  async download(fileId: string): Promise<Readable> {
    try {
      const res = await this.#drive.files.get(
        { fileId, alt: 'media', supportsAllDrives: true },
        { ...this.#options(), responseType: 'stream' },
      );
      return asNodeStream(res.data);
    } catch (error) {
      throw toDriveError(error, `download file ${fileId}`);
    }
  }

  /** A Google-native file exported to `mimeType` (`files.export`), streamed. */
  async export(fileId: string, mimeType: string): Promise<Readable> {
    try {
      const res = await this.#drive.files.export({ fileId, mimeType }, { ...this.#options(), responseType: 'stream' });
      return asNodeStream(res.data);
    } catch (error) {
      throw toDriveError(error, `export file ${fileId}`);
    }
  }

  #options() {
    return this.#signal ? { signal: this.#signal } : {};
  }
}

function toEntry(file: drive_v3.Schema$File): DriveEntry {
  const shortcut = file.shortcutDetails?.targetId
    ? { targetId: file.shortcutDetails.targetId, targetMimeType: file.shortcutDetails.targetMimeType ?? '' }
    : null;
  return {
    id: file.id ?? '',
    name: file.name ?? file.id ?? '',
    mimeType: file.mimeType ?? 'application/octet-stream',
    size: file.size === undefined || file.size === null ? null : Number(file.size),
    // Drive omits ownedByMe on shared drives, whose files belong to no user: they count as shared.
    ownedByMe: file.ownedByMe === true,
    shortcut,
  };
}

/** gaxios answers a stream as a Node stream; a web stream is converted, anything else refused. */
function asNodeStream(data: unknown): Readable {
  if (data instanceof Readable) return data;
  if (data && typeof (data as ReadableStream).getReader === 'function')
    return Readable.fromWeb(data as import('node:stream/web').ReadableStream);
  throw new Error('Google Drive client returned no stream');
}
