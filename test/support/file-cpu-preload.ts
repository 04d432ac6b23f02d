/**
 * Loaded into every test file's process by `npm test` (`--import`, test/support/run-suite.ts): when
 * the process exits, appends the CPU it used to the file named by TEST_CPU_LOG, one JSON line
 * (`{"file", "ms", "childrenMs"}`). `childrenMs` is the CPU of the processes it started and waited
 * for (workers, the CLI, browsers), as Linux counts it for a parent; 0 elsewhere. The file
 * durations reporter puts it beside each file's wall time, so a slow file shows whether it works or
 * waits. It imports nothing but node:fs: every test process loads it.
 */
import fs from 'node:fs';
import { childrenCpuMs } from './process-cpu.ts';

const log = process.env.TEST_CPU_LOG;
if (log) {
  process.once('exit', () => {
    const { user, system } = process.cpuUsage();
    const line = { file: process.argv[1] ?? '', ms: Math.round((user + system) / 1000), childrenMs: childrenCpuMs() };
    try {
      fs.appendFileSync(log, `${JSON.stringify(line)}\n`);
    } catch {
      // An accounting line lost is not a test failure.
    }
  });
}
