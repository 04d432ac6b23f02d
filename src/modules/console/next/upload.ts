// Uploads: one request per file (XMLHttpRequest, the only browser API with upload progress), six at
// a time, each with its own progress, cancel, and the service's refusal in words. Retry is offered
// only where it can help (the network, a busy or failing service); a refused file says why instead.
// Folders are mirrored as folders (created once each; an existing one of the same name is reused).
import { OPERATIONS } from '../../../../packages/sdk/src/generated/api-types.ts';
import { client, credentialHeaders, DocuVaultError, type OperationResponse } from './sdk.ts';

export type UploadState = 'waiting' | 'uploading' | 'stored' | 'refused' | 'failed' | 'cancelled';

export interface UploadItem {
  id: number;
  file: File;
  /** Folder path inside the dropped folder ('' for a loose file). */
  dir: string;
  targetFolder: string | null;
  state: UploadState;
  loaded: number;
  reason?: string;
  requestId?: string;
  documentId?: string;
  xhr?: XMLHttpRequest;
}

export interface PickedFile {
  file: File;
  dir: string;
}

/**
 * Files sent at once. Six is what Chromium and Firefox open to one origin over HTTP/1.1: more would
 * only queue in the browser. Four left the service idle between files (docs/benchmarks-console.md).
 */
const CONCURRENCY = 6;
const DRAW_EVERY_MS = 150;
let nextId = 1;

/** Files of a drop: loose files and whole folders (walked through the File System entries), hidden entries skipped. */
export async function filesOfDrop(data: DataTransfer): Promise<PickedFile[]> {
  const entries = [...data.items]
    .map((item) => item.webkitGetAsEntry?.())
    .filter((e): e is FileSystemEntry => Boolean(e));
  if (entries.length === 0) return [...data.files].map((file) => ({ file, dir: '' }));
  const out: PickedFile[] = [];
  const walk = async (entry: FileSystemEntry, dir: string): Promise<void> => {
    if (entry.name.startsWith('.')) return;
    if (entry.isFile) {
      const file = await new Promise<File>((resolve, reject) => (entry as FileSystemFileEntry).file(resolve, reject));
      out.push({ file, dir });
      return;
    }
    const reader = (entry as FileSystemDirectoryEntry).createReader();
    const path = dir ? `${dir}/${entry.name}` : entry.name;
    for (;;) {
      const batch = await new Promise<FileSystemEntry[]>((resolve, reject) => reader.readEntries(resolve, reject));
      if (batch.length === 0) break;
      for (const child of batch) await walk(child, path);
    }
  };
  for (const entry of entries) await walk(entry, '');
  return out;
}

/** Files of a folder picker (`webkitdirectory`): their relative path names the folders. */
export function filesOfPicker(files: FileList): PickedFile[] {
  return [...files]
    .filter((f) => !f.webkitRelativePath.split('/').some((part) => part.startsWith('.')))
    .map((file) => ({ file, dir: file.webkitRelativePath.split('/').slice(0, -1).join('/') }));
}

/** The upload queue: items, a change callback, and the work. */
export class Uploads {
  items: UploadItem[] = [];
  #folders = new Map<string, Promise<string>>();
  #running = 0;
  #drawPending = false;
  readonly #listeners = new Set<() => void>();
  readonly #onStored: () => void;

  /** `onStored`: a file was stored (the page refreshes its list). */
  constructor(onStored: () => void) {
    this.#onStored = onStored;
  }

  /**
   * Calls `draw` after changes (at most once a frame); answers the unsubscribe. Only the upload
   * list subscribes, so a file's progress redraws that list, not the page around it.
   */
  subscribe(draw: () => void): () => void {
    this.#listeners.add(draw);
    return () => void this.#listeners.delete(draw);
  }

  add(files: PickedFile[], folderId: string | null): void {
    for (const { file, dir } of files)
      this.items.push({ id: nextId++, file, dir, targetFolder: folderId, state: 'waiting', loaded: 0 });
    this.#changed(true);
    this.#pump();
  }

  cancel(id: number): void {
    const item = this.items.find((i) => i.id === id);
    if (!item) return;
    if (item.state === 'uploading') item.xhr?.abort();
    if (item.state === 'waiting' || item.state === 'uploading') item.state = 'cancelled';
    this.#changed(true);
  }

  retry(id: number): void {
    const item = this.items.find((i) => i.id === id);
    if (!item || !retriable(item)) return;
    Object.assign(item, { state: 'waiting', loaded: 0, reason: undefined, requestId: undefined });
    this.#changed(true);
    this.#pump();
  }

  clearFinished(): void {
    this.items = this.items.filter((i) => i.state === 'waiting' || i.state === 'uploading');
    this.#changed(true);
  }

  /** Files waiting or being sent. */
  get active(): number {
    let n = 0;
    for (const i of this.items) if (i.state === 'waiting' || i.state === 'uploading') n++;
    return n;
  }

  /**
   * One redraw every 150 ms at most, however many files progressed or finished meanwhile: a
   * 200-file drop makes ~1,000 changes, each of which used to redraw the page, and redrawing a
   * 200-line list every frame is work a busy machine takes from the uploads themselves
   * (docs/benchmarks-console.md). Progress bars moving ~7 times a second still read as live.
   */
  #changed(now = false): void {
    if (now) {
      // What the person just did (add, cancel, retry, clear) shows at once; only the network's news waits.
      for (const draw of this.#listeners) draw();
      return;
    }
    if (this.#drawPending) return;
    this.#drawPending = true;
    setTimeout(() => {
      this.#drawPending = false;
      for (const draw of this.#listeners) draw();
    }, DRAW_EVERY_MS);
  }

  #pump(): void {
    while (this.#running < CONCURRENCY) {
      const item = this.items.find((i) => i.state === 'waiting');
      if (!item) return;
      item.state = 'uploading';
      this.#running++;
      void this.#send(item).finally(() => {
        this.#running--;
        this.#changed();
        this.#pump();
      });
    }
  }

  async #send(item: UploadItem): Promise<void> {
    try {
      const folder = item.dir ? await this.#folder(item.targetFolder, item.dir) : item.targetFolder;
      if ((item.state as UploadState) === 'cancelled') return;
      const answer = await this.#post(item, folder, false);
      item.state = 'stored';
      item.documentId = answer.id;
      this.#onStored();
    } catch (error) {
      if ((item.state as UploadState) === 'cancelled') return;
      if (error instanceof DocuVaultError) {
        item.reason = error.message;
        item.requestId = error.requestId;
        item.state = error.status === 429 || error.status >= 500 ? 'failed' : 'refused';
      } else {
        item.reason = (error as Error).message;
        item.state = 'failed';
      }
    }
  }

  /** The folder for a path under `parent`, created once (a folder of that name already there is reused). */
  #folder(parent: string | null, dir: string): Promise<string> {
    const key = `${parent ?? ''}/${dir}`;
    let found = this.#folders.get(key);
    if (!found) {
      const parts = dir.split('/');
      const name = parts.pop() as string;
      found = (async () => {
        const above = parts.length ? await this.#folder(parent, parts.join('/')) : parent;
        try {
          const made = await client().call('createFolder', { body: { name, ...(above ? { parent_id: above } : {}) } });
          return made.id;
        } catch (error) {
          if (!(error instanceof DocuVaultError) || error.status !== 409) throw error;
          const { folders } = await client().call('listFolders');
          const same = folders.find((f) => f.name === name && f.parent_id === above);
          if (!same) throw error;
          return same.id;
        }
      })();
      found.catch(() => this.#folders.delete(key));
      this.#folders.set(key, found);
    }
    return found;
  }

  #post(item: UploadItem, folder: string | null, refreshed: boolean): Promise<OperationResponse<'uploadDocument'>> {
    return new Promise((resolve, reject) => {
      const xhr = new XMLHttpRequest();
      item.xhr = xhr;
      xhr.open('POST', OPERATIONS.uploadDocument.path);
      for (const [name, value] of Object.entries({
        ...credentialHeaders(),
        accept: 'application/json',
        'idempotency-key': crypto.randomUUID(),
      }))
        xhr.setRequestHeader(name, value);
      xhr.upload.onprogress = (e) => {
        item.loaded = e.lengthComputable ? e.loaded / e.total : item.loaded;
        this.#changed();
      };
      xhr.onerror = () => reject(new Error('The connection failed during the upload.'));
      xhr.onabort = () => reject(new Error('cancelled'));
      xhr.onload = () => {
        let body: unknown = null;
        try {
          body = JSON.parse(xhr.responseText);
        } catch {
          // not JSON: described below by the status
        }
        if (xhr.status >= 200 && xhr.status < 300) return resolve(body as OperationResponse<'uploadDocument'>);
        // An expired access token: one SDK call refreshes it, then the file goes again.
        if (xhr.status === 401 && !refreshed) {
          return void client()
            .call('getAuthMe')
            .then(() => this.#post(item, folder, true).then(resolve, reject), reject);
        }
        const error = (body ?? {
          error: 'http_error',
          code: 'HTTP_ERROR',
          message: `The service answered ${xhr.status}.`,
        }) as { error: string; code: string; message: string };
        reject(
          new DocuVaultError(xhr.status, error, { requestId: xhr.getResponseHeader('x-request-id') ?? undefined }),
        );
      };
      const form = new FormData();
      if (folder) form.append('folder_id', folder);
      form.append('file', item.file, item.file.name);
      xhr.send(form);
    });
  }
}

/** Whether trying again can help: the network, or a service that was busy or failing; never a refusal of the file itself. */
export function retriable(item: UploadItem): boolean {
  return item.state === 'failed' || item.state === 'cancelled';
}
