// Uploads: small files grouped ten to a request (`upload-batch`), larger ones and a handful alone
// (`upload`), six requests at a time (XMLHttpRequest, the only browser API with upload progress).
// Each file keeps its own progress, cancel, and the service's refusal in words. Retry is offered
// only where it can help (the network, a busy or failing service); a refused file says why instead.
// Folders are mirrored as folders (created once each; an existing one of the same name is reused).
import { OPERATIONS } from '../../../../packages/sdk/src/generated/api-types.ts';
import { client, credentialHeaders, DocuVaultError, type OperationResponse } from './sdk.ts';
import { t } from './i18n.ts';
import { type BatchRejection, nextGroup, outcomesOf, sharesOf } from './upload-batch.ts';

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
  /** The document already holding the same content, when the service said so. */
  duplicateOf?: string;
  /** The request carrying the file while it is sent. */
  request?: Sending;
}

/** One request in flight: its files, and whether its body has left (after which it cannot be taken back). */
interface Sending {
  xhr: XMLHttpRequest | null;
  items: UploadItem[];
  bodySent: boolean;
}

export interface PickedFile {
  file: File;
  dir: string;
}

/**
 * Requests sent at once. Six is what Chromium and Firefox open to one origin over HTTP/1.1: more would
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

  /**
   * Cancels a file waiting or being sent. A file sharing a request whose body is still being sent
   * stops that request; the others of it go back to waiting and are sent again (the service stores
   * nothing of a batch whose body did not arrive whole).
   */
  cancel(id: number): void {
    const item = this.items.find((i) => i.id === id);
    if (!item || !cancellable(item)) return;
    const request = item.request;
    item.state = 'cancelled';
    if (request) {
      for (const other of request.items)
        if (other !== item && other.state === 'uploading') Object.assign(other, { state: 'waiting', loaded: 0 });
      request.xhr?.abort();
    }
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
      const waiting = this.items.filter((i) => i.state === 'waiting');
      const group = nextGroup(waiting, (a, b) => a.targetFolder === b.targetFolder && a.dir === b.dir, CONCURRENCY);
      if (group.length === 0) return;
      const request: Sending = { xhr: null, items: group, bodySent: false };
      for (const item of group) Object.assign(item, { state: 'uploading', request });
      this.#running++;
      void this.#send(request).finally(() => {
        for (const item of group) if (item.request === request) item.request = undefined;
        this.#running--;
        this.#changed();
        this.#pump();
      });
    }
  }

  /** The files of the request still meant to go (not cancelled meanwhile, not sent back to waiting). */
  #live(request: Sending): UploadItem[] {
    return request.items.filter((i) => i.state === 'uploading' && i.request === request);
  }

  async #send(request: Sending): Promise<void> {
    const first = request.items[0] as UploadItem;
    try {
      const folder = first.dir ? await this.#folder(first.targetFolder, first.dir) : first.targetFolder;
      const live = this.#live(request);
      if (live.length === 0) return;
      request.items = live;
      if (live.length === 1) {
        const answer = (await this.#post(
          request,
          OPERATIONS.uploadDocument.path,
          folder,
          false,
        )) as OperationResponse<'uploadDocument'>;
        if (this.#live(request).length === 0) return;
        this.#stored(live[0] as UploadItem, answer);
        return;
      }
      const answer = (await this.#post(
        request,
        OPERATIONS.uploadDocumentBatch.path,
        folder,
        false,
      )) as OperationResponse<'uploadDocumentBatch'>;
      this.#batchAnswered(request, answer, null);
    } catch (error) {
      const live = this.#live(request);
      if (live.length === 0) return;
      const refusals = error instanceof DocuVaultError ? error.details?.['rejected'] : undefined;
      // A batch none of whose files was stored answers the first refusal, listing each in `details.rejected`.
      if (live.length > 1 && Array.isArray(refusals) && error instanceof DocuVaultError) {
        this.#batchAnswered(request, { documents: [], rejected: refusals as BatchRejection[] }, error.requestId);
        return;
      }
      for (const item of live) failedWith(item, error);
    }
  }

  #stored(item: UploadItem, answer: { id: string; duplicate_of?: string | undefined }): void {
    item.state = 'stored';
    item.loaded = 1;
    item.documentId = answer.id;
    if (answer.duplicate_of) item.duplicateOf = answer.duplicate_of;
    this.#onStored();
  }

  /** Each file of a batch told its own outcome: stored, or refused with the reason the answer gives it. */
  #batchAnswered(
    request: Sending,
    answer: {
      documents: readonly { id: string; filename: string; duplicate_of?: string | undefined }[];
      rejected: readonly BatchRejection[];
    },
    requestId: string | null | undefined,
  ): void {
    const live = this.#live(request);
    const outcomes = outcomesOf(
      live.map((i) => i.file.name),
      answer,
    );
    const id = requestId ?? request.xhr?.getResponseHeader('x-request-id') ?? undefined;
    live.forEach((item, n) => {
      const outcome = outcomes[n];
      if (outcome && 'stored' in outcome) {
        this.#stored(item, outcome.stored);
        return;
      }
      item.state = 'refused';
      item.loaded = 0;
      item.reason = outcome && 'refused' in outcome ? outcome.refused.message : t('upload.unknown');
      if (id) item.requestId = id;
    });
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

  /** Sends the request's files (`file` alone, `files` in a batch) to `path`; the JSON answer, or a DocuVaultError. */
  #post(request: Sending, path: string, folder: string | null, refreshed: boolean): Promise<unknown> {
    const items = request.items;
    return new Promise((resolve, reject) => {
      const xhr = new XMLHttpRequest();
      request.xhr = xhr;
      request.bodySent = false;
      xhr.open('POST', path);
      for (const [name, value] of Object.entries({
        ...credentialHeaders(),
        accept: 'application/json',
        'idempotency-key': crypto.randomUUID(),
      }))
        xhr.setRequestHeader(name, value);
      const sizes = items.map((i) => i.file.size);
      xhr.upload.onprogress = (e) => {
        if (!e.lengthComputable) return;
        const shares = sharesOf(sizes, e.loaded, e.total);
        items.forEach((item, n) => {
          if (item.request === request && item.state === 'uploading') item.loaded = shares[n] ?? item.loaded;
        });
        this.#changed();
      };
      xhr.upload.onload = () => {
        request.bodySent = true;
      };
      xhr.onerror = () => reject(new Error(t('upload.connectionFailed')));
      xhr.onabort = () => reject(new Error('cancelled'));
      xhr.onload = () => {
        let body: unknown = null;
        try {
          body = JSON.parse(xhr.responseText);
        } catch {
          // not JSON: described below by the status
        }
        if (xhr.status >= 200 && xhr.status < 300) return resolve(body);
        // An expired access token: one SDK call refreshes it, then the files go again.
        if (xhr.status === 401 && !refreshed) {
          return void client()
            .call('getAuthMe')
            .then(() => this.#post(request, path, folder, true).then(resolve, reject), reject);
        }
        const error = (body ?? {
          error: 'http_error',
          code: 'HTTP_ERROR',
          message: t('upload.httpStatus', { status: xhr.status }),
        }) as { error: string; code: string; message: string };
        reject(
          new DocuVaultError(xhr.status, error, { requestId: xhr.getResponseHeader('x-request-id') ?? undefined }),
        );
      };
      const form = new FormData();
      if (folder) form.append('folder_id', folder);
      const field = items.length === 1 ? 'file' : 'files';
      for (const item of items) form.append(field, item.file, item.file.name);
      xhr.send(form);
    });
  }
}

/** A request that failed as a whole: the file is refused for a reason retrying cannot change, or failed for one it can. */
function failedWith(item: UploadItem, error: unknown): void {
  item.loaded = 0;
  if (error instanceof DocuVaultError) {
    item.reason = error.message;
    if (error.requestId) item.requestId = error.requestId;
    item.state = error.status === 429 || error.status >= 500 ? 'failed' : 'refused';
  } else {
    item.reason = (error as Error).message;
    item.state = 'failed';
  }
}

/**
 * Whether the file can still be stopped: waiting, or being sent alone, or sharing a request whose
 * body is still on its way (once a batch's body has left, the service may already be storing it).
 */
export function cancellable(item: UploadItem): boolean {
  if (item.state === 'waiting') return true;
  if (item.state !== 'uploading') return false;
  const request = item.request;
  return !request || request.items.length === 1 || !request.bodySent;
}

/** Whether trying again can help: the network, or a service that was busy or failing; never a refusal of the file itself. */
export function retriable(item: UploadItem): boolean {
  return item.state === 'failed' || item.state === 'cancelled';
}
