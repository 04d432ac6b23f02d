import assert from 'node:assert/strict';
import { it } from 'node:test';
import { isUuid, newId } from '../../src/lib/ids.ts';

it('makes UUIDv7 ids that carry their millisecond, version and variant', () => {
  const at = Date.UTC(2026, 10, 26, 12, 0, 0, 123);
  const id = newId(at);
  assert.ok(isUuid(id));
  assert.equal(Number.parseInt(id.replace(/-/g, '').slice(0, 12), 16), at);
  assert.equal(id[14], '7');
  assert.match(id[19]!, /[89ab]/);
});

it('sorts ids made in the same millisecond in the order they were made', () => {
  for (let round = 0; round < 50; round++) {
    const at = Date.UTC(2026, 10, 26) + round;
    const ids = Array.from({ length: 2_000 }, () => newId(at));
    assert.deepEqual([...ids].sort(), ids);
    assert.equal(new Set(ids).size, ids.length);
  }
  const burst = Array.from({ length: 10_000 }, () => newId());
  assert.deepEqual([...burst].sort(), burst);
});

it('keeps the order when one millisecond holds more ids than its counter (the millisecond advances)', () => {
  const at = Date.UTC(2026, 10, 27);
  const ids = Array.from({ length: 12_000 }, () => newId(at));
  assert.deepEqual([...ids].sort(), ids);
  assert.equal(new Set(ids).size, ids.length);
  const ms = (id: string) => Number.parseInt(id.replace(/-/g, '').slice(0, 12), 16);
  assert.equal(ms(ids[0]!), at);
  assert.ok(ms(ids.at(-1)!) > at, 'past the counter, the next milliseconds');
  // The next real millisecond the ids already ran into continues after them.
  assert.ok(newId(at + 1) > ids.at(-1)!);
  // A clock set back (a test's fake clock) writes its own millisecond again.
  assert.equal(ms(newId(at - 5_000)), at - 5_000);
});
