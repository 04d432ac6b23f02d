/**
 * A node:test reporter that lists each test file's wall time (its process, from start to exit),
 * slowest first, with the total and how many tests each file ran. Used to find where the suite's
 * time goes, and by `npm test` (test/support/run-suite.ts) to start the slowest files first (README "Tests").
 */
import path from 'node:path';

interface FileRow {
  ms: number;
  tests: number;
  failed: number;
}

interface TestEvent {
  type: string;
  data: { name?: string; file?: string; nesting?: number; details?: { duration_ms?: number; type?: string } };
}

export default async function* fileDurations(source: AsyncIterable<TestEvent>): AsyncGenerator<string> {
  const started = Date.now();
  const files = new Map<string, FileRow>();
  const row = (file: string): FileRow => {
    let r = files.get(file);
    if (!r) {
      r = { ms: 0, tests: 0, failed: 0 };
      files.set(file, r);
    }
    return r;
  };
  for await (const event of source) {
    const { file, name, details } = event.data ?? {};
    if (!file) continue;
    const relative = path.relative(process.cwd(), file);
    // The file itself completes as a test named after its path, lasting as long as its process.
    if (event.type === 'test:complete' && name !== undefined && path.resolve(name) === file) {
      row(relative).ms = details?.duration_ms ?? 0;
    } else if ((event.type === 'test:pass' || event.type === 'test:fail') && details?.type !== 'suite') {
      row(relative).tests += 1;
      if (event.type === 'test:fail') row(relative).failed += 1;
    }
  }
  const rows = [...files].sort((a, b) => b[1].ms - a[1].ms);
  const sum = rows.reduce((s, [, r]) => s + r.ms, 0);
  yield `file wall times (slowest first); wall clock ${((Date.now() - started) / 1000).toFixed(1)} s, sum of files ${(sum / 1000).toFixed(1)} s\n`;
  for (const [file, r] of rows) {
    yield `${(r.ms / 1000).toFixed(1).padStart(7)} s  ${String(r.tests).padStart(4)} tests${r.failed ? ` (${r.failed} failed)` : ''}  ${file}\n`;
  }
}
