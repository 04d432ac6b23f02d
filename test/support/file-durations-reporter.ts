/**
 * A node:test reporter that lists each test file's wall time (its process, from start to exit),
 * slowest first, with the total and how many tests each file ran. Used to find where the suite's
 * time goes, and by `npm test` (test/support/run-suite.ts) to start the slowest files first (README "Tests").
 *
 * Under `npm test` (TEST_CPU_LOG set, see file-cpu-preload.ts) it also gives each file's CPU, and the
 * whole run's: the CPU of every process the run started and waited for, over its wall time, says
 * how many cores the run kept busy on average — near the machine's count, the run is bound by CPU
 * and only less work shortens it; well below, it waits (leases, timers, start-ups) and more files
 * side by side, or shorter waits, would.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { childrenCpuMs, type FileCpu, readCpuLog } from './process-cpu.ts';

interface FileRow {
  ms: number;
  tests: number;
  failed: number;
}

interface TestEvent {
  type: string;
  data: { name?: string; file?: string; nesting?: number; details?: { duration_ms?: number; type?: string } };
}

const seconds = (ms: number) => (ms / 1000).toFixed(1);

/** The run's CPU line: this process and every process it waited for (the test files and theirs). */
function runCpuLine(wallMs: number): string {
  const { user, system } = process.cpuUsage();
  const cpuMs = (user + system) / 1000 + childrenCpuMs();
  const cores = os.availableParallelism();
  return `CPU ${seconds(cpuMs)} s in the run's processes (PostgreSQL's not counted): ${(cpuMs / wallMs).toFixed(2)} of ${cores} cores busy on average\n`;
}

/** The CPU of each file's process (absolute path), when the run recorded it. */
function filesCpu(): Map<string, FileCpu> {
  const log = process.env.TEST_CPU_LOG;
  return log && fs.existsSync(log) ? readCpuLog(fs.readFileSync(log, 'utf8')) : new Map();
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
    // The file itself completes as a test named after its path, lasting as long as its process.
    if (event.type === 'test:complete' && name !== undefined && path.resolve(name) === file) {
      row(file).ms = details?.duration_ms ?? 0;
    } else if ((event.type === 'test:pass' || event.type === 'test:fail') && details?.type !== 'suite') {
      row(file).tests += 1;
      if (event.type === 'test:fail') row(file).failed += 1;
    }
  }
  const wallMs = Date.now() - started;
  const cpu = filesCpu();
  const rows = [...files].sort((a, b) => b[1].ms - a[1].ms);
  const sum = rows.reduce((s, [, r]) => s + r.ms, 0);
  yield `file wall times (slowest first); wall clock ${seconds(wallMs)} s, sum of files ${seconds(sum)} s\n`;
  if (process.env.TEST_CPU_LOG) yield runCpuLine(wallMs);
  for (const [file, r] of rows) {
    const c = cpu.get(file);
    const cpuText = c
      ? `  cpu ${seconds(c.ms + c.childrenMs).padStart(5)} s (${seconds(c.childrenMs)} in children)`
      : '';
    yield `${seconds(r.ms).padStart(7)} s  ${String(r.tests).padStart(4)} tests${r.failed ? ` (${r.failed} failed)` : ''}${cpuText}  ${path.relative(process.cwd(), file)}\n`;
  }
}
