import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import type pg from 'pg';

/**
 * CPU time of processes, from /proc (Linux; null elsewhere). On a shared machine requests per
 * second move with other people's work, CPU time per request much less: it says where the cost is.
 */
let tickMs: number | null | undefined;

function msPerTick(): number | null {
  if (tickMs !== undefined) return tickMs;
  try {
    tickMs = 1000 / Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
  } catch {
    tickMs = null;
  }
  return tickMs;
}

/** user + system CPU milliseconds of a process so far, or null. */
export function cpuMs(pid: number): number | null {
  const tick = msPerTick();
  if (tick === null) return null;
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // Fields after the command: state is field 3, utime 14 and stime 15.
    return (Number(fields[11]) + Number(fields[12])) * tick;
  } catch {
    return null;
  }
}

/** The backend processes serving one PostgreSQL database (same machine only). */
export async function backendPids(client: pg.Client, database: string): Promise<number[]> {
  const { rows } = await client.query<{ pid: number }>(
    'select pid from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()',
    [database],
  );
  return rows.map((r) => r.pid);
}

/** CPU milliseconds of each pid now (those unreadable are left out). */
export function cpuSnapshot(pids: number[]): Map<number, number> {
  const snapshot = new Map<number, number>();
  for (const pid of pids) {
    const ms = cpuMs(pid);
    if (ms !== null) snapshot.set(pid, ms);
  }
  return snapshot;
}

/** CPU milliseconds spent between two snapshots by the pids present in both. */
export function cpuSpent(before: Map<number, number>, after: Map<number, number>): number {
  let spent = 0;
  for (const [pid, ms] of after) if (before.has(pid)) spent += ms - before.get(pid)!;
  return spent;
}
