import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { lastDurations, slowestFirst } from '../support/run-suite.ts';

// `npm test` hands the files out slowest first, from the last run's durations file.
describe('test run order', () => {
  const text = [
    'file wall times (slowest first); wall clock 480.0 s, sum of files 900.0 s',
    '   61.0 s    12 tests  test/workflows/durability.test.ts',
    '    2.5 s     4 tests (1 failed)  test/folders/folder-paths.test.ts',
    '   20.0 s     9 tests  test/cli/cli.test.ts',
    '',
  ].join('\n');

  it("reads each file's seconds from the durations file", () => {
    assert.deepEqual(
      [...lastDurations(text)],
      [
        ['test/workflows/durability.test.ts', 61],
        ['test/folders/folder-paths.test.ts', 2.5],
        ['test/cli/cli.test.ts', 20],
      ],
    );
  });

  it('orders slowest first, a file the durations do not know ahead of the short ones, ties by path', () => {
    const files = [
      'test/a/short.test.ts',
      'test/folders/folder-paths.test.ts',
      'test/cli/cli.test.ts',
      'test/new/unknown.test.ts',
      'test/workflows/durability.test.ts',
      'test/b/also-new.test.ts',
    ];
    const seconds = lastDurations(text);
    seconds.set('test/a/short.test.ts', 1);
    assert.deepEqual(slowestFirst(files, seconds), [
      'test/workflows/durability.test.ts',
      'test/cli/cli.test.ts',
      'test/b/also-new.test.ts',
      'test/new/unknown.test.ts',
      'test/folders/folder-paths.test.ts',
      'test/a/short.test.ts',
    ]);
  });

  it('without a durations file, starts the known slow files first', () => {
    const order = slowestFirst(
      ['test/folders/folder-paths.test.ts', 'test/workflows/triggers.test.ts', 'test/workflows/durability.test.ts'],
      lastDurations(null),
    );
    assert.deepEqual(order.slice(0, 2), ['test/workflows/durability.test.ts', 'test/workflows/triggers.test.ts']);
  });
});
