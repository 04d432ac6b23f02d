import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { freeNow } from '../../../src/providers/extraction/free-now.ts';

describe('freeNow', () => {
  it('frees a buffer of its own at once, and leaves views into shared memory alone', () => {
    const own = new Uint8Array(1024 * 1024).fill(7);
    freeNow(own);
    assert.equal(own.buffer.detached, true);
    assert.equal(own.byteLength, 0);
    freeNow(own); // twice is harmless

    // A small Buffer is a slice of Node's shared pool: freeing it would free its neighbours.
    const pooled = Buffer.from('a few bytes');
    const neighbour = Buffer.from('next door');
    freeNow(pooled);
    assert.equal(pooled.toString(), 'a few bytes');
    assert.equal(neighbour.toString(), 'next door');

    const part = new Uint8Array(new ArrayBuffer(64), 8, 16);
    freeNow(part);
    assert.equal(part.buffer.detached, false);

    const shared = new Uint8Array(new SharedArrayBuffer(64));
    freeNow(shared);
    assert.equal(shared.byteLength, 64);
  });
});
