import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import { terminalHighlight } from '../../packages/cli/src/highlight.ts';
import { bytes } from '../../packages/cli/src/io.ts';
import { UploadProgress } from '../../packages/cli/src/upload/progress.ts';

/** A stream that keeps what was written, as a terminal would show it. */
function screen() {
  let text = '';
  const stream = new Writable({
    write(chunk, _encoding, done) {
      text += String(chunk);
      done();
    },
  });
  return { stream: Object.assign(stream, { columns: 200 }), text: () => text };
}

describe('CLI terminal output', () => {
  it('shows search highlights bold on a terminal and as plain text elsewhere, entities decoded', () => {
    const html = 'Hotel <mark>stays</mark> &amp; <mark>meals</mark>:\n  &lt;b&gt; &quot;x&quot;';
    assert.equal(terminalHighlight(html, false), 'Hotel stays & meals: <b> "x"');
    assert.equal(terminalHighlight(html, true), 'Hotel \u001b[1mstays\u001b[22m & \u001b[1mmeals\u001b[22m: <b> "x"');
    // Text that itself reads "<mark>" arrives escaped and stays visible as such.
    assert.equal(terminalHighlight('&lt;mark&gt; is a tag', true), '<mark> is a tag');
    assert.equal(terminalHighlight('no marks here', true), 'no marks here');
  });

  it('formats sizes and rates without raw decimals', () => {
    assert.equal(bytes(0), '0 B');
    assert.equal(bytes(714.2857142857), '714 B');
    assert.equal(bytes(1536), '1.5 KB');
    assert.equal(bytes(1024 * 1024 * 3.0625), '3.1 MB');
  });

  it('renders the progress bar with whole numbers only', () => {
    const out = screen();
    const progress = new UploadProgress(3, 1001, out.stream, true);
    progress.sending('a.txt', 333);
    progress.finish('b.txt', 7, 'uploaded');
    progress.stop();
    const line = out.text();
    assert.match(line, /\] 1\/3 files {2}340 B\/1001 B {2}\d+(\.\d)? [KMGT]?B\/s {2}ETA \d+:\d\d/, line);
    assert.doesNotMatch(line, /\d\.\d{2,}/, line);
  });
});
