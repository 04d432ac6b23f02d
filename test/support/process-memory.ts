import { readdirSync, readFileSync, writeFileSync } from 'node:fs';

// Resident memory read from /proc, as the kernel counts it: for tests that bound what a process
// (and every process it started) may use.

/** VmRSS and VmHWM (the peak since start or the last reset) of a process, in MiB; null once it is gone. */
export function processMemory(pid: number): { rssMiB: number; peakMiB: number } | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0);
    return { rssMiB: kib('VmRSS') / 1024, peakMiB: kib('VmHWM') / 1024 };
  } catch {
    return null;
  }
}

/** The process and all its descendants (threads' children included). */
export function processTree(pid: number): number[] {
  const out = [pid];
  for (let i = 0; i < out.length; i++) {
    const tasks = (() => {
      try {
        return readdirSync(`/proc/${out[i]}/task`);
      } catch {
        return [];
      }
    })();
    for (const task of tasks) {
      try {
        for (const child of readFileSync(`/proc/${out[i]}/task/${task}/children`, 'utf8').split(/\s+/).filter(Boolean))
          out.push(Number(child));
      } catch {
        // The task ended meanwhile.
      }
    }
  }
  return out;
}

/**
 * Samples the resident memory of `pid` and its descendants every `intervalMs` from now on, after
 * resetting the kernel's peak of `pid` (so that peak counts from now, not from the process's start).
 * `stop()` answers the highest sum of VmRSS seen, the peak (VmHWM) of each process seen, and the
 * larger of the two measures for the whole tree.
 */
export function sampleProcessMemory(
  pid = process.pid,
  intervalMs = 20,
): { current(): number; stop(): { sampledSumMiB: number; peaks: Map<number, number>; peakMiB: number } } {
  writeFileSync(`/proc/${pid}/clear_refs`, '5');
  const peaks = new Map<number, number>();
  let sampledSumMiB = 0;
  const sample = () => {
    let sum = 0;
    // One process's RSS, then a child's: a sum, not a snapshot, but each part as the kernel counts it.
    for (const each of processTree(pid)) {
      const memory = processMemory(each);
      if (!memory) continue;
      sum += memory.rssMiB;
      peaks.set(each, Math.max(peaks.get(each) ?? 0, memory.peakMiB));
    }
    sampledSumMiB = Math.max(sampledSumMiB, sum);
    return sum;
  };
  sample();
  const timer = setInterval(sample, intervalMs);
  return {
    /** The tree's VmRSS now, in MiB. */
    current: () => sample(),
    stop() {
      clearInterval(timer);
      sample();
      const peakSum = [...peaks.values()].reduce((a, b) => a + b, 0);
      return { sampledSumMiB, peaks, peakMiB: Math.max(sampledSumMiB, peakSum) };
    },
  };
}
