/**
 * CPU accounting of test processes, for `npm test`'s report of where the run's time goes
 * (test/support/file-durations-reporter.ts): CPU of the processes a process waited for, read
 * from /proc on Linux, and the per-file lines test/support/file-cpu-preload.ts writes.
 */
import fs from 'node:fs';

/** Linux's USER_HZ: /proc reports CPU times in these ticks (100 on every mainstream kernel). */
const TICKS_PER_SECOND = 100;

/**
 * Fields of /proc/<pid>/stat after the command (which is in parentheses and may hold spaces):
 * index 0 is the state, 11/12 utime/stime, 13/14 cutime/cstime (man 5 proc, fields 14–17).
 */
function statFields(pid: number | 'self'): string[] | null {
  try {
    const text = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return text.slice(text.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

const ticksToMs = (ticks: number) => Math.round((ticks * 1000) / TICKS_PER_SECOND);

/** CPU (ms) of this process's children that have exited and been waited for, and of theirs; 0 where /proc is missing. */
export function childrenCpuMs(): number {
  const fields = statFields('self');
  return fields ? ticksToMs(Number(fields[13]) + Number(fields[14])) : 0;
}

/** One file's CPU as its process reported it at exit: its own and that of the processes it waited for. */
export interface FileCpu {
  ms: number;
  childrenMs: number;
}

/** The lines of a TEST_CPU_LOG, by test file path as the process saw it (absolute); a later line for a file wins. */
export function readCpuLog(text: string): Map<string, FileCpu> {
  const files = new Map<string, FileCpu>();
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    try {
      const { file, ms, childrenMs } = JSON.parse(line) as { file: string; ms: number; childrenMs: number };
      if (typeof file === 'string' && Number.isFinite(ms)) files.set(file, { ms, childrenMs: childrenMs || 0 });
    } catch {
      // A line cut short (a process killed while writing) is skipped.
    }
  }
  return files;
}
