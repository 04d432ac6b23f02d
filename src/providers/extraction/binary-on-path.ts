import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

/** Where an executable named `name` is on the PATH, or null: a file lookup, so it can answer synchronously. */
export function findOnPath(name: string, path = process.env.PATH ?? ''): string | null {
  const names = process.platform === 'win32' ? [`${name}.exe`] : [name];
  for (const dir of path.split(delimiter)) {
    if (!dir) continue;
    for (const file of names) {
      const candidate = join(dir, file);
      try {
        accessSync(candidate, constants.X_OK);
        return candidate;
      } catch {
        // not here
      }
    }
  }
  return null;
}
