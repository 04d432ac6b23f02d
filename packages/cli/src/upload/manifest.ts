import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { appendFile, mkdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';

/** What one earlier run recorded about a file it uploaded (or found already there). */
export interface ManifestEntry {
  path: string;
  size: number;
  mtimeMs: number;
  sha256: string;
  document_id: string;
  folder_id: string | null;
}

/**
 * The resume log of uploads to one service and target: one JSON line per file that arrived,
 * appended as each upload answers, so a run killed at any point leaves every finished file
 * recorded (a torn last line is ignored). It is a cache: the service is the truth (see plan.ts).
 */
export class UploadManifest {
  readonly #file: string;
  readonly #entries: Map<string, ManifestEntry>;

  private constructor(file: string, entries: Map<string, ManifestEntry>) {
    this.#file = file;
    this.#entries = entries;
  }

  /** The manifest for uploads from this machine to `baseUrl` under `target`, kept beside the config. */
  static async open(configFile: string, baseUrl: string, target: string): Promise<UploadManifest> {
    const name = createHash('sha256').update(`${baseUrl}\n${target.toLowerCase()}`).digest('hex').slice(0, 24);
    const file = join(dirname(configFile), 'uploads', `${name}.jsonl`);
    const entries = new Map<string, ManifestEntry>();
    const text = await readFile(file, 'utf8').catch(() => '');
    for (const line of text.split('\n')) {
      try {
        const entry = JSON.parse(line) as ManifestEntry;
        entries.set(entry.path, entry);
      } catch {
        // A line torn by a kill, or an empty one.
      }
    }
    await mkdir(dirname(file), { recursive: true, mode: 0o700 });
    return new UploadManifest(file, entries);
  }

  /** The entry for a file unchanged since it was recorded (same size and modification time). */
  lookup(path: string, size: number, mtimeMs: number): ManifestEntry | undefined {
    const entry = this.#entries.get(path);
    return entry && entry.size === size && entry.mtimeMs === mtimeMs ? entry : undefined;
  }

  async record(entry: ManifestEntry): Promise<void> {
    this.#entries.set(entry.path, entry);
    await appendFile(this.#file, `${JSON.stringify(entry)}\n`, { mode: 0o600 });
  }
}

/** The hex SHA-256 of a file, streamed. */
export async function sha256File(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}
