// Upload: files and whole folders (dropped or picked), mirrored as folders, sent as batches of up
// to 10 files per folder with a progress bar per file, a retry per failed file and the batch's
// rejected list with the service's reasons.
import { ApiError, type BatchFile, type BatchOutcome, call, uploadBatch } from './api.ts';
import type { Folder } from './browse.ts';
import { errorLine, h, show } from './views.ts';

const BATCH = 10;

/** A file found in a drop or a folder pick, with the folders between the drop and it. */
interface Picked {
  file: File;
  dirs: string[];
}

export async function uploadView(): Promise<void> {
  const { folders } = await call('listFolders', 'GET', '/api/v1/folders');
  const select = h(
    'select',
    { id: 'folder' },
    h('option', { value: '' }, 'Top level'),
    ...folders.map((f) => h('option', { value: f.id }, f.name)),
  ) as HTMLSelectElement;
  const list = h('ul', { class: 'uploads', 'aria-label': 'Uploads' });
  const rejected = h(
    'section',
    { 'aria-label': 'Rejected files', hidden: true },
    h('h3', {}, 'Rejected'),
    h('ul', { id: 'rejected' }),
  );
  const status = h('p', { role: 'status' });
  const start = (picked: Picked[]) =>
    void sendAll(picked, select.value || null, { list, rejected, status }).catch((error) =>
      status.replaceChildren(errorLine(error)),
    );
  const files = h('input', {
    type: 'file',
    id: 'files',
    multiple: true,
    onchange: (e: Event) => start(fromInput(e.target as HTMLInputElement)),
  });
  const dirs = h('input', {
    type: 'file',
    id: 'dirs',
    webkitdirectory: true,
    onchange: (e: Event) => start(fromInput(e.target as HTMLInputElement)),
  });
  const drop = h(
    'div',
    { class: 'drop' },
    h('p', {}, 'Drop files or folders here, or choose them:'),
    h('label', { for: 'files' }, 'Files '),
    files,
    h('br'),
    h('label', { for: 'dirs' }, 'A folder '),
    dirs,
  );
  drop.addEventListener('dragover', (e) => {
    e.preventDefault();
    drop.classList.add('over');
  });
  drop.addEventListener('dragleave', () => drop.classList.remove('over'));
  drop.addEventListener('drop', (e) => {
    e.preventDefault();
    drop.classList.remove('over');
    // Entries must be taken during the event: the DataTransfer is emptied after it.
    const entries = [...(e.dataTransfer?.items ?? [])]
      .map((item) => item.webkitGetAsEntry())
      .filter((x): x is FileSystemEntry => x !== null);
    void Promise.all(entries.map((entry) => walk(entry, []))).then((found) => start(found.flat()));
  });
  show(
    h('h2', {}, 'Upload'),
    h('p', {}, h('label', { for: 'folder' }, 'Into folder '), select),
    drop,
    status,
    list,
    rejected,
  );
}

function fromInput(input: HTMLInputElement): Picked[] {
  return [...(input.files ?? [])]
    .map((file) => ({ file, dirs: file.webkitRelativePath.split('/').slice(0, -1) }))
    .filter((p) => !isHidden(p));
}

const isHidden = (p: Picked) => p.file.name.startsWith('.') || p.dirs.some((d) => d.startsWith('.'));

/** The files under a dropped entry (hidden ones skipped, as the CLI does), each with its folder path. */
async function walk(entry: FileSystemEntry, dirs: string[]): Promise<Picked[]> {
  if (entry.name.startsWith('.')) return [];
  if (entry.isFile)
    return [{ file: await new Promise<File>((ok, fail) => (entry as FileSystemFileEntry).file(ok, fail)), dirs }];
  const reader = (entry as FileSystemDirectoryEntry).createReader();
  const children: FileSystemEntry[] = [];
  // readEntries answers in pieces (100 at a time in Chromium) until it answers none.
  for (;;) {
    const piece = await new Promise<FileSystemEntry[]>((ok, fail) => reader.readEntries(ok, fail));
    if (piece.length === 0) break;
    children.push(...piece);
  }
  return (await Promise.all(children.map((child) => walk(child, [...dirs, entry.name])))).flat();
}

interface Ui {
  list: HTMLElement;
  rejected: HTMLElement;
  status: HTMLElement;
}

async function sendAll(picked: Picked[], base: string | null, ui: Ui): Promise<void> {
  const folderOf = folderMaker(base);
  const byFolder = new Map<string | null, BatchFile[]>();
  ui.status.textContent = `Preparing ${picked.length} files…`;
  for (const p of picked) {
    const folderId = await folderOf(p.dirs);
    byFolder.set(folderId, [...(byFolder.get(folderId) ?? []), { file: p.file, folderId }]);
  }
  let stored = 0;
  let refused = 0;
  for (const batch of [...byFolder.values()].flatMap((files) => chunks(files, BATCH))) {
    const outcomes = await sendBatch(batch, ui);
    stored += outcomes.filter((o) => 'id' in o).length;
    refused += outcomes.length - outcomes.filter((o) => 'id' in o).length;
  }
  ui.status.textContent = `${stored} stored, ${refused} not stored.`;
}

async function sendBatch(batch: BatchFile[], ui: Ui): Promise<BatchOutcome[]> {
  const rows = batch.map((b) => uploadRow(b.file, ui.list));
  const files = batch.map((b) => b.file);
  const outcomes = await uploadBatch(files, batch[0]?.folderId ?? null, (i, share) => rows[i]?.progress(share)).catch(
    (error: unknown) => {
      // The whole request failed (network, quota, auth): each file can be retried on its own.
      const code = error instanceof ApiError ? error.body.code : 'NETWORK_ERROR';
      return files.map((file) => ({ file, code, message: error instanceof Error ? error.message : String(error) }));
    },
  );
  for (const [i, outcome] of outcomes.entries()) rows[i]?.settle(outcome, batch[i] as BatchFile, ui);
  return outcomes;
}

function uploadRow(file: File, list: HTMLElement) {
  const bar = h('progress', { max: 1, value: 0, 'aria-label': `Upload of ${file.name}` }) as HTMLProgressElement;
  const state = h('span', {}, ' sending');
  const item = h('li', {}, `${file.name} `, bar, state);
  list.append(item);
  return {
    progress: (share: number) => {
      bar.value = share;
    },
    settle: (outcome: BatchOutcome, b: BatchFile, ui: Ui) => {
      if ('id' in outcome) {
        bar.value = 1;
        state.replaceChildren(' ', h('a', { href: `#/document/${outcome.id}` }, 'stored'));
        return;
      }
      const retry = h('button', { type: 'button', 'aria-label': `Retry ${file.name}` }, 'Retry');
      const reason = h('li', {}, h('strong', {}, file.name), ` – ${outcome.code}: ${outcome.message} `, retry);
      retry.addEventListener('click', () => {
        item.remove();
        reason.remove();
        void sendBatch([b], ui);
      });
      state.replaceChildren(errorLine(new Error(outcome.code)));
      ui.rejected.hidden = false;
      ui.rejected.querySelector('ul')?.append(reason);
    },
  };
}

/**
 * Answers the folder id for a path under the chosen folder, creating missing folders once each
 * (a folder made meanwhile by someone else, 409, is looked up and reused).
 */
function folderMaker(base: string | null): (dirs: string[]) => Promise<string | null> {
  const known = new Map<string, Promise<string | null>>([['', Promise.resolve(base)]]);
  const ensure = (dirs: string[]): Promise<string | null> => {
    const key = dirs.join('/');
    let id = known.get(key);
    if (!id) {
      id = ensure(dirs.slice(0, -1)).then((parent) => child(parent, dirs[dirs.length - 1] as string));
      known.set(key, id);
    }
    return id;
  };
  return ensure;
}

async function child(parent: string | null, name: string): Promise<string> {
  try {
    return (await call('createFolder', 'POST', '/api/v1/folders', { name, parent_id: parent })).id;
  } catch (error) {
    if (!(error instanceof ApiError && error.status === 409)) throw error;
    const { folders } = await call(
      'listFolders',
      'GET',
      `/api/v1/folders${parent ? `?parent_id=${encodeURIComponent(parent)}` : ''}`,
    );
    const found = folders.find((f: Folder) => f.name === name && f.parent_id === parent);
    if (!found) throw error;
    return found.id;
  }
}

function chunks<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
