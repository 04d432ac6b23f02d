import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readCpuLog } from '../support/process-cpu.ts';
import { knownSeconds, lastDurations, slowestFirst } from '../support/run-suite.ts';

// `npm test` hands the files out slowest first, from the durations of earlier runs.
describe('test run order', () => {
  const text = [
    'file wall times (slowest first); wall clock 480.0 s, sum of files 900.0 s',
    '   61.0 s    12 tests  test/modules/workflows/durability.test.ts',
    '    2.5 s     4 tests (1 failed)  test/modules/documents/folders/folder-paths.test.ts',
    '   20.0 s     9 tests  cpu  12.5 s (4.0 in children)  test/cli/cli.test.ts',
    '',
  ].join('\n');

  it("reads each file's seconds from the durations file", () => {
    assert.deepEqual(
      [...lastDurations(text)],
      [
        ['test/modules/workflows/durability.test.ts', 61],
        ['test/modules/documents/folders/folder-paths.test.ts', 2.5],
        ['test/cli/cli.test.ts', 20],
      ],
    );
  });

  it('orders slowest first, a file the durations do not know ahead of the short ones, ties by path', () => {
    const files = [
      'test/a/short.test.ts',
      'test/modules/documents/folders/folder-paths.test.ts',
      'test/cli/cli.test.ts',
      'test/new/unknown.test.ts',
      'test/modules/workflows/durability.test.ts',
      'test/b/also-new.test.ts',
    ];
    const seconds = lastDurations(text);
    seconds.set('test/a/short.test.ts', 1);
    assert.deepEqual(slowestFirst(files, seconds), [
      'test/modules/workflows/durability.test.ts',
      'test/cli/cli.test.ts',
      'test/b/also-new.test.ts',
      'test/new/unknown.test.ts',
      'test/modules/documents/folders/folder-paths.test.ts',
      'test/a/short.test.ts',
    ]);
  });

  it('before any run, starts the known slow files first; then goes by what earlier runs measured', () => {
    const files = [
      'test/modules/documents/folders/folder-paths.test.ts',
      'test/modules/workflows/triggers.test.ts',
      'test/modules/workflows/durability.test.ts',
    ];
    assert.deepEqual(slowestFirst(files, knownSeconds(null)).slice(0, 2), [
      'test/modules/workflows/durability.test.ts',
      'test/modules/workflows/triggers.test.ts',
    ]);
    const known = knownSeconds(JSON.stringify({ 'test/modules/documents/folders/folder-paths.test.ts': 90 }));
    assert.equal(slowestFirst(files, known)[0], 'test/modules/documents/folders/folder-paths.test.ts');
  });

  it("reads each file's CPU from the lines its process wrote at exit, skipping a line cut short", () => {
    const log = [
      '{"file":"/repo/test/a.test.ts","ms":1200,"childrenMs":300}',
      '{"file":"/repo/test/b.test.ts","ms":80,"childrenMs":0}',
      '{"file":"/repo/test/c.te',
      '',
    ].join('\n');
    assert.deepEqual(
      [...readCpuLog(log)],
      [
        ['/repo/test/a.test.ts', { ms: 1200, childrenMs: 300 }],
        ['/repo/test/b.test.ts', { ms: 80, childrenMs: 0 }],
      ],
    );
  });
});
