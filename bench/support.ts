import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';

/** Shared helpers for benchmarks: free ports, child servers, percentiles. */

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

export const median = (values: number[]) => percentile(values, 50);

/** Starts `node <args>` with env, resolving once GET url answers 200; returns the child and the time it took. */
export async function startAndWait(
  args: string[],
  env: Record<string, string>,
  url: string,
  timeoutMs = 15_000,
): Promise<{ child: ChildProcess; ms: number }> {
  const started = performance.now();
  const child = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (d) => (stderr += String(d)));
  while (performance.now() - started < timeoutMs) {
    if (child.exitCode !== null) throw new Error(`server exited early: ${stderr}`);
    try {
      const res = await fetch(url);
      if (res.status === 200) {
        await res.arrayBuffer();
        return { child, ms: performance.now() - started };
      }
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 5));
  }
  child.kill('SIGKILL');
  throw new Error(`server did not answer within ${timeoutMs} ms: ${stderr}`);
}

export async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await Promise.race([exited, new Promise((r) => setTimeout(r, 5_000))]);
  if (child.exitCode === null) child.kill('SIGKILL');
}
