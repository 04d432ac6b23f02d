import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { after, describe, it } from 'node:test';
import { intakeFile, intakeUntyped } from '../../../src/modules/documents/file-intake.ts';
import { LocalBlobStore } from '../../../src/providers/blobs/local-blob-store.ts';

/**
 * A client that leaves while an upload awaits its orphan guard (a database round trip, slow on
 * PostgreSQL) destroys the file part before intake reads it: intake must fail at once, not wait on
 * a pipe that never ends (which held the request's Idempotency-Key as in progress).
 */
describe('file intake of a part that failed before it was read', () => {
  const root = mkdtempSync(join(tmpdir(), 'intake-failed-'));
  after(() => rmSync(root, { recursive: true, force: true }));
  const blobs = new LocalBlobStore(root);

  function failedPart(): PassThrough {
    const file = new PassThrough();
    file.on('error', () => {}); // the parser's own listener, which saw the error first
    file.write('a note, half sent');
    file.destroy(new Error('the request was closed before the multipart data was fully parsed'));
    return file;
  }

  const options = { quotaBytes: null, quotaError: () => new Error('quota') as never };

  it('intakeFile rejects with the part error', async () => {
    const file = failedPart();
    await new Promise((r) => setImmediate(r));
    await assert.rejects(
      intakeFile(blobs, { filename: 'note.txt', file }, { ...options, key: 'a/one', drainRefused: false }),
      /closed before/,
    );
  });

  it('intakeUntyped rejects with the part error', async () => {
    const file = failedPart();
    await new Promise((r) => setImmediate(r));
    await assert.rejects(intakeUntyped(blobs, { file }, { ...options, key: 'a/two' }), /closed before/);
  });

  it('a part closed without an error before it ended rejects too', async () => {
    const file = new PassThrough();
    file.write('half');
    file.destroy();
    await new Promise((r) => setImmediate(r));
    await assert.rejects(
      intakeFile(blobs, { filename: 'note.txt', file }, { ...options, key: 'a/three', drainRefused: false }),
    );
  });
});
