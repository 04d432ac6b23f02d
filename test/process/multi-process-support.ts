import { type ChildProcess, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { REDIS_URL, redisAvailable } from '../support/redis.ts';
export { REDIS_URL, redisAvailable };

/**
 * Helpers of test/process/multi-process.test.ts (and bench/multi-process.bench.ts): the service as
 * plain child processes of src/main.ts, an S3 proxy that can hold answers, raw multipart uploads,
 * and CPU time read from /proc.
 */

/** The entry the processes run: the sources, or the production bundle with `TEST_SERVICE_MAIN=dist/main.js`. */
export const MAIN = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../..',
  process.env['TEST_SERVICE_MAIN'] ?? 'src/main.ts',
);
/** Removes the rate-limit counters a run left under its prefix. */
export async function dropRedisPrefix(prefix: string, url = REDIS_URL): Promise<void> {
  const redis = new Redis(url, { maxRetriesPerRequest: 1 });
  redis.on('error', () => {});
  try {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
  } finally {
    redis.disconnect();
  }
}

export interface ServiceProcess {
  name: string;
  command: 'serve' | 'worker';
  child: ChildProcess;
  pid: number;
  /** `http://127.0.0.1:<port>` for `serve`, null for `worker`. */
  base: string | null;
  /** The last 64 KiB of stdout and stderr, for failure messages. */
  output(): string;
  exited: Promise<number | null>;
}

/** Starts `node [nodeArgs] src/main.ts <command>` with exactly `env` on top of this process's environment. */
export function spawnService(
  name: string,
  command: 'serve' | 'worker',
  env: Record<string, string>,
  nodeArgs: string[] = [],
): ServiceProcess {
  const child = spawn(process.execPath, [...nodeArgs, MAIN, command], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const keep = (d: Buffer) => {
    out += String(d);
    if (out.length > 65_536) out = out.slice(-65_536);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code, signal) => resolve(code ?? (signal ? -1 : null))),
  );
  return {
    name,
    command,
    child,
    pid: child.pid!,
    base: command === 'serve' ? `http://127.0.0.1:${env['PORT']}` : null,
    output: () => out,
    exited,
  };
}

/** Resolves when GET base+path answers 200 (or, for a worker, when its log says it started). */
export async function waitReady(svc: ServiceProcess, timeoutMs = 30_000, probe = '/readyz'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (svc.child.exitCode !== null || svc.child.signalCode !== null)
      throw new Error(`${svc.name} exited early:\n${svc.output()}`);
    if (svc.base) {
      try {
        const res = await fetch(`${svc.base}${probe}`);
        await res.arrayBuffer();
        if (res.status === 200) return;
      } catch {
        // not listening yet
      }
    } else if (/"msg":"started"/.test(svc.output())) {
      return;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${svc.name} not ready within ${timeoutMs} ms:\n${svc.output()}`);
}

/** SIGKILL, and resolves once the process is gone. */
export async function killHard(svc: ServiceProcess): Promise<void> {
  if (svc.child.exitCode === null && svc.child.signalCode === null) svc.child.kill('SIGKILL');
  await svc.exited;
}

/** SIGTERM, then SIGKILL after `graceMs`; never throws. */
export async function stopService(svc: ServiceProcess, graceMs = 5_000): Promise<void> {
  if (svc.child.exitCode !== null || svc.child.signalCode !== null) return;
  svc.child.kill('SIGTERM');
  const timer = setTimeout(() => svc.child.kill('SIGKILL'), graceMs);
  await svc.exited;
  clearTimeout(timer);
}

/**
 * A pass-through proxy in front of the S3 test server. While `hold` is on, the answers to PUTs of
 * document bytes are kept back after the object was stored: the API process waits for them, so a
 * kill at that moment leaves bytes in the bucket whose document row never committed.
 */
export interface HoldingProxy {
  endpoint: string;
  hold: boolean;
  /** Keys whose PUT was stored and whose answer is being held. */
  held: string[];
  close(): Promise<void>;
}

export async function startHoldingProxy(target: string): Promise<HoldingProxy> {
  const upstream = new URL(target);
  const sockets = new Set<import('node:net').Socket>();
  const state: { hold: boolean; held: string[] } = { hold: false, held: [] };
  const server = http.createServer((req, res) => {
    const holdThis =
      state.hold &&
      req.method === 'PUT' &&
      /\/documents\//.test(req.url ?? '') &&
      !/[?&](partNumber|uploadId)=/.test(req.url ?? '');
    const forward = http.request(
      { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        if (holdThis) {
          answer.resume();
          answer.on('end', () =>
            state.held.push(decodeURIComponent((req.url ?? '').split('?')[0]!.split('/').slice(2).join('/'))),
          );
          return; // never answered: the caller is killed while it waits
        }
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forward.on('error', () => res.destroy());
    req.on('error', () => forward.destroy());
    req.pipe(forward);
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    get hold() {
      return state.hold;
    },
    set hold(value: boolean) {
      state.hold = value;
    },
    get held() {
      return state.held;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

export interface UploadOutcome {
  filename: string;
  sha256: string;
  size: number;
  /** HTTP status, or 0 when the connection failed (the process died). */
  status: number;
  id: string | null;
  via: string;
  error?: string;
}

function multipartBody(filename: string): { boundary: string; head: Buffer; tail: Buffer } {
  const boundary = `mp${createHash('sha1').update(filename).digest('hex').slice(0, 16)}`;
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: text/plain\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  return { boundary, head, tail };
}

/**
 * POST /api/v1/documents/upload as raw multipart over its own connection. With `pauseAfterBytes`,
 * only that much of the file is sent, then the request waits on `resume` (or forever): an upload
 * cut short by a crash.
 */
export function upload(
  base: string,
  headers: Record<string, string>,
  filename: string,
  content: Buffer,
  options: { pauseAfterBytes?: number; resume?: Promise<void>; onPaused?: () => void } = {},
): Promise<UploadOutcome> {
  const sha256 = createHash('sha256').update(content).digest('hex');
  const { boundary, head, tail } = multipartBody(filename);
  const url = new URL('/api/v1/documents/upload', base);
  const outcome = (status: number, id: string | null, error?: string): UploadOutcome => ({
    filename,
    sha256,
    size: content.length,
    status,
    id,
    via: base,
    ...(error ? { error } : {}),
  });
  return new Promise((resolve) => {
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        method: 'POST',
        path: url.pathname,
        agent: false,
        headers: {
          ...headers,
          'content-type': `multipart/form-data; boundary=${boundary}`,
          'content-length': head.length + content.length + tail.length,
        },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d) => (body += d));
        res.on('end', () => {
          let id: string | null = null;
          try {
            id = res.statusCode === 201 ? ((JSON.parse(body) as { id: string }).id ?? null) : null;
          } catch {
            id = null;
          }
          resolve(outcome(res.statusCode ?? 0, id, res.statusCode === 201 ? undefined : body.slice(0, 300)));
        });
        res.on('error', (e) => resolve(outcome(0, null, e.message)));
      },
    );
    req.on('error', (e) => resolve(outcome(0, null, e.message)));
    if (options.pauseAfterBytes === undefined) {
      req.end(Buffer.concat([head, content, tail]));
      return;
    }
    req.write(Buffer.concat([head, content.subarray(0, options.pauseAfterBytes)]));
    options.onPaused?.();
    void options.resume?.then(() => req.end(Buffer.concat([content.subarray(options.pauseAfterBytes), tail])));
  });
}

// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON answers.
type Json = any;

/** JSON over fetch: status, parsed body (or text), headers. */
export async function call(
  base: string,
  method: string,
  urlPath: string,
  headers: Record<string, string> = {},
  body?: unknown,
): Promise<{ status: number; body: Json; headers: Headers }> {
  const res = await fetch(`${base}${urlPath}`, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text === '' ? null : JSON.parse(text);
  } catch {
    // not JSON
  }
  return { status: res.status, body: parsed, headers: res.headers };
}

/** utime + stime of a process in seconds, from /proc (null when it is gone or /proc is absent). */
export function cpuSeconds(pid: number): number | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // Fields 14 and 15 of stat (utime, stime) are 12 and 13 after the command name.
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return null;
  }
}

/** Resident set size in MiB, from /proc/<pid>/status. */
export function rssMiB(pid: number): number | null {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = /VmRSS:\s+(\d+) kB/.exec(status);
    return kb ? Math.round((Number(kb[1]) / 1024) * 10) / 10 : null;
  } catch {
    return null;
  }
}

/** Pids of every process whose command line starts with `name` (e.g. the PostgreSQL server and its backends). */
export function pidsNamed(pattern: RegExp): number[] {
  const pids: number[] = [];
  let entries: string[] = [];
  try {
    entries = fs.readdirSync('/proc');
  } catch {
    return pids;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmd = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').replace(/\0/g, ' ');
      if (pattern.test(cmd)) pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

/** Waits until `url` answers 200 (30 s at most); fails at once with the output if the child exits first. */
export async function waitUntilAnswering(url: string, child: ChildProcess, output: () => string): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if (child.exitCode !== null) throw new Error(`exited early: ${output()}`);
    try {
      if ((await fetch(url)).status === 200) return;
    } catch {
      // not yet listening
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no answer: ${output()}`);
}
