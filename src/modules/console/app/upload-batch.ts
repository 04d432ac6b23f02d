// Grouping small files into one `POST /documents/upload-batch` request, and reading its answer back
// per file. Pure functions (no DOM, no network), so they are tested in Node alone.
//
// Why: per request the service spends ~7.5 ms of CPU on a single upload and ~2.7 ms a file in a
// batch of 10 (bench/console-upload-paths.bench.ts, docs/benchmarks-console.md), and a browser
// opens only six connections to one origin, so a drop of many small files is bound by requests,
// not bytes. A batch keeps what a single upload gives each file: progress (its share of the
// request's bytes), a reason when refused (the answer lists each refused file), cancel while
// waiting or while its request's body is still being sent.

/** What the service takes in one batch (docs/api-decisions.md §6, spec Limits). */
export const MAX_BATCH_FILES = 10;
/** Files larger than this go alone: their own cancel is worth more than the request saved. */
export const MAX_GROUPED_FILE_BYTES = 4 * 1024 * 1024;
/** A batch's body stays under this, so one cancel never throws much sending away. */
export const MAX_BATCH_BYTES = 16 * 1024 * 1024;

/**
 * Characters the service drops from or changes in a file name (src/lib/names.ts: controls, format
 * and invisible characters, separators, path parts), and `"`, which a browser's form escapes as
 * `%22`. A name with none of them comes back exactly as sent, which is how a batch's answer is
 * matched to its files; others go alone.
 */
const CHANGED_ON_THE_WAY = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}/\\"\u115F\u1160\u3164\uFFA0]/u;

/** Whether a file may share a request: small, and a name the service keeps as given. */
export function groupable(file: { name: string; size: number }): boolean {
  const name = file.name;
  return (
    file.size <= MAX_GROUPED_FILE_BYTES &&
    name.length > 0 &&
    name.length <= 200 &&
    name === name.normalize('NFC').trim() &&
    name !== '.' &&
    name !== '..' &&
    name.isWellFormed() &&
    !CHANGED_ON_THE_WAY.test(name)
  );
}

/**
 * The next request's files, from the files waiting (in order) that go to the same folder as the
 * first: the first alone when it is not groupable; otherwise up to `MAX_BATCH_FILES` groupable ones,
 * no two of the same name (an answer names files, so names must tell them apart), spread so that
 * `lanes` requests share what waits (a handful of files go one a request, in parallel).
 */
export function nextGroup<T extends { file: { name: string; size: number } }>(
  waiting: readonly T[],
  sameFolder: (a: T, b: T) => boolean,
  lanes: number,
): T[] {
  const first = waiting[0];
  if (!first) return [];
  if (!groupable(first.file)) return [first];
  const size = Math.min(MAX_BATCH_FILES, Math.max(1, Math.ceil(waiting.length / lanes)));
  const group = [first];
  const names = new Set([first.file.name]);
  let bytes = first.file.size;
  for (const item of waiting.slice(1)) {
    if (group.length >= size) break;
    if (!groupable(item.file) || !sameFolder(first, item) || names.has(item.file.name)) continue;
    if (bytes + item.file.size > MAX_BATCH_BYTES) break;
    group.push(item);
    names.add(item.file.name);
    bytes += item.file.size;
  }
  return group;
}

/** A refused file as the batch answer lists it. */
export interface BatchRejection {
  filename: string;
  code: string;
  message: string;
}

export type BatchOutcome<D> = { stored: D } | { refused: BatchRejection } | { unknown: true };

/**
 * Each file's outcome, in the order sent. The answer lists the stored documents and the refused
 * files each in the order of the request, so walking both lists beside the files, by name (names
 * in a group are distinct and kept as sent), pairs every file with its own entry. A file neither
 * list names (an answer this code does not expect) is `unknown`, never guessed.
 */
export function outcomesOf<D extends { filename: string }>(
  names: readonly string[],
  answer: { documents: readonly D[]; rejected: readonly BatchRejection[] },
): BatchOutcome<D>[] {
  let d = 0;
  let r = 0;
  return names.map((name) => {
    const doc = answer.documents[d];
    if (doc && doc.filename === name) {
      d++;
      return { stored: doc };
    }
    const refusal = answer.rejected[r];
    if (refusal && refusal.filename === name) {
      r++;
      return { refused: refusal };
    }
    return { unknown: true };
  });
}

/**
 * Each file's share of a request's progress: the body carries the files in order, so `loaded` of
 * `total` bytes has sent the first files whole and part of the next (the form's few hundred bytes
 * of headers a file are spread in proportion, close enough for a progress bar).
 */
export function sharesOf(sizes: readonly number[], loaded: number, total: number): number[] {
  const sum = sizes.reduce((a, b) => a + b, 0);
  if (total <= 0 || sum === 0) return sizes.map(() => (loaded >= total ? 1 : 0));
  let sent = (Math.min(loaded, total) / total) * sum;
  return sizes.map((size) => {
    if (size === 0) return sent >= 0 ? 1 : 0;
    const part = Math.max(0, Math.min(size, sent));
    sent -= size;
    return part / size;
  });
}
