import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { ndjsonBatches, ndjsonRows } from '../../../src/modules/transfer/tenant-archive/ndjson-batches.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ndjson-batches-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

let files = 0;
function staged(text: string): string {
  const file = path.join(dir, `${files++}.ndjson`);
  fs.writeFileSync(file, text);
  return file;
}

async function collect(file: string, maxBytes: number, maxRows: number): Promise<Record<string, unknown>[][]> {
  const batches: Record<string, unknown>[][] = [];
  for await (const batch of ndjsonBatches(file, maxBytes, maxRows)) batches.push(batch);
  return batches;
}

describe('staged NDJSON read in bounded batches', () => {
  it('parses every row once, in order, whatever the buffer cuts (lines across reads, a line longer than the buffer)', async () => {
    const rows = Array.from({ length: 200 }, (_, i) => ({ id: i, text: 'é'.repeat(i % 7 === 0 ? 300 : i % 13) }));
    const file = staged(rows.map((r) => `${JSON.stringify(r)}\n`).join(''));
    // A 64-byte buffer: most lines cross a read, the long ones are several buffers long.
    const batches = await collect(file, 64, 1_000);
    assert.deepEqual(batches.flat(), rows);
    assert.ok(batches.length > 1);
  });

  it('keeps a last line without its newline, and skips empty lines', async () => {
    const file = staged('{"a":1}\n\n{"a":2}\n{"a":3}');
    assert.deepEqual(await collect(file, 1024, 1_000), [[{ a: 1 }, { a: 2 }, { a: 3 }]]);
    assert.deepEqual(await collect(staged(''), 1024, 1_000), []);
  });

  it('ends a batch at its byte or row bound', async () => {
    const line = `${JSON.stringify({ v: 'x'.repeat(90) })}\n`; // 98 bytes and its newline
    const file = staged(line.repeat(10));
    const bySize = await collect(file, 250, 1_000);
    assert.deepEqual(
      bySize.map((b) => b.length),
      [3, 3, 3, 1],
    );
    const byCount = await collect(file, 1 << 20, 4);
    assert.deepEqual(
      byCount.map((b) => b.length),
      [4, 4, 2],
    );
  });

  it('refuses a line that is not JSON', async () => {
    const file = staged('{"a":1}\n{not json}\n');
    await assert.rejects(async () => {
      for await (const _ of ndjsonRows(file));
    }, SyntaxError);
  });
});
