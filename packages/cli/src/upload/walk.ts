import { readdir, stat } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';

/** A local file to upload: where it is, and the folder path it goes to (relative to the target). */
export interface LocalFile {
  path: string;
  /** The folder path under the target, e.g. `reports/2025` ('' for the target itself). */
  folder: string;
  name: string;
  size: number;
  mtimeMs: number;
}

/**
 * The files of the given paths: a file as itself; a folder recursively, mirrored under its own
 * name (as `cp -r` does). Hidden entries (`.git`, `.DS_Store`) are left out; symlinks are not followed.
 */
export async function walk(inputs: string[]): Promise<LocalFile[]> {
  const files: LocalFile[] = [];
  for (const input of inputs) {
    const path = resolve(input);
    const info = await stat(path);
    if (info.isDirectory()) await walkFolder(path, basename(path), files);
    else if (info.isFile())
      files.push({ path, folder: '', name: basename(path), size: info.size, mtimeMs: info.mtimeMs });
  }
  return files;
}

async function walkFolder(dir: string, folder: string, out: LocalFile[]): Promise<void> {
  const entries = (await readdir(dir, { withFileTypes: true }))
    .filter((e) => !e.name.startsWith('.'))
    .sort((a, b) => (a.name < b.name ? -1 : 1));
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) await walkFolder(path, `${folder}/${entry.name}`, out);
    else if (entry.isFile()) {
      const info = await stat(path);
      out.push({ path, folder, name: entry.name, size: info.size, mtimeMs: info.mtimeMs });
    }
  }
}
