import fs from 'node:fs';

/** Bytes of NDJSON per batch: what a batch's rows allocate stays well under V8's young generation. */
export const BATCH_BYTES = 256 * 1024;
/** Rows per batch at most (small rows: a batch still goes to the database in a few statements). */
export const BATCH_ROWS = 1_000;

const NEWLINE = 0x0a;

/**
 * The rows of a staged NDJSON file, parsed, in batches of at most `maxBytes` of text and `maxRows`
 * rows. The file is read through one buffer, reused from chunk to chunk (grown only for a line
 * longer than it); each batch is parsed only when the previous one has been handled.
 *
 * Why batches bounded in bytes (docs/tenant-export.md, "Memory"): a row that lives across an
 * `await` long enough to survive two young-generation collections is promoted to the old
 * generation, where it stays as garbage until the next full collection — whose timing V8 decides
 * from the heap's size, not ours. With a line-by-line stream (readline queues a whole chunk's lines)
 * and batches of 500 rows of any size, a 10,000-document import promoted ~100 MB of rows that way,
 * and the process's peak RSS depended on when V8 collected them. A batch of at most 256 KB of text
 * is a few MB of objects at most, inserted before the next is read: it dies young, whatever the
 * archive's size.
 */
export async function* ndjsonBatches(
  file: string,
  maxBytes = BATCH_BYTES,
  maxRows = BATCH_ROWS,
): AsyncGenerator<Record<string, unknown>[]> {
  const handle = await fs.promises.open(file, 'r');
  try {
    let buffer = Buffer.allocUnsafe(maxBytes);
    /** Bytes of `buffer` holding data not parsed yet (a partial line at its start). */
    let filled = 0;
    let batch: Record<string, unknown>[] = [];
    let batchBytes = 0;
    for (;;) {
      if (filled === buffer.length) {
        // A line longer than the buffer: grow it (to the longest line of the file, no further).
        const larger = Buffer.allocUnsafe(buffer.length * 2);
        buffer.copy(larger, 0, 0, filled);
        buffer = larger;
      }
      const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, null);
      const end = filled + bytesRead;
      let start = 0;
      for (;;) {
        const newline = buffer.indexOf(NEWLINE, start);
        // At the end of the file, a last line without its newline still counts.
        const lineEnd = newline >= 0 && newline < end ? newline : bytesRead === 0 && start < end ? end : -1;
        if (lineEnd < 0) break;
        if (lineEnd > start) {
          batch.push(JSON.parse(buffer.toString('utf8', start, lineEnd)) as Record<string, unknown>);
          batchBytes += lineEnd - start;
        }
        start = lineEnd + 1;
        if (batchBytes >= maxBytes || batch.length >= maxRows) {
          yield batch;
          batch = [];
          batchBytes = 0;
        }
      }
      if (bytesRead === 0) break;
      // The partial line goes to the buffer's start; the next read completes it.
      filled = end - Math.min(start, end);
      if (filled > 0 && start > 0) buffer.copyWithin(0, start, end);
    }
    if (batch.length > 0) yield batch;
  } finally {
    await handle.close();
  }
}

/** The rows of a staged NDJSON file one by one (ndjsonBatches' bounded reads). */
export async function* ndjsonRows(file: string): AsyncGenerator<Record<string, unknown>> {
  for await (const batch of ndjsonBatches(file)) yield* batch;
}
