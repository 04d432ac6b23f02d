import http from 'node:http';

/**
 * A small closed-loop HTTP load generator (autocannon is not a dependency): `connections` keep-alive
 * sockets, each sending the next request when the previous answer is read. Loopback only, bounded
 * by time and by a request cap. Run as its own process so it does not share the server's event loop:
 *   node bench/auth/load-generator.ts <url> <connections> <seconds> '<headers json>'
 */
export interface LoadResult {
  requests: number;
  seconds: number;
  rps: number;
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  maxMs: number;
  statuses: Record<string, number>;
  errors: number;
}

const MAX_REQUESTS = 2_000_000;

export async function generateLoad(options: {
  url: string;
  connections: number;
  seconds: number;
  warmupSeconds?: number;
  headers?: Record<string, string>;
}): Promise<LoadResult> {
  const target = new URL(options.url);
  if (!['127.0.0.1', 'localhost', '[::1]'].includes(target.hostname)) throw new Error('loopback targets only');
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.connections });
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  let errors = 0;
  let recording = false;
  let stopped = false;

  const once = () =>
    new Promise<void>((resolve) => {
      const started = performance.now();
      const req = http.request(
        {
          agent,
          host: target.hostname,
          port: target.port,
          path: target.pathname + target.search,
          method: 'GET',
          headers: options.headers,
        },
        (res) => {
          res.resume();
          res.on('end', () => {
            if (recording) {
              latencies.push(performance.now() - started);
              statuses[res.statusCode ?? 0] = (statuses[res.statusCode ?? 0] ?? 0) + 1;
            }
            resolve();
          });
        },
      );
      req.on('error', () => {
        if (recording) errors += 1;
        resolve();
      });
      req.end();
    });

  const worker = async () => {
    while (!stopped && latencies.length < MAX_REQUESTS) await once();
  };
  const workers = Array.from({ length: options.connections }, worker);
  await new Promise((r) => setTimeout(r, (options.warmupSeconds ?? 1) * 1000));
  recording = true;
  const began = performance.now();
  await new Promise((r) => setTimeout(r, options.seconds * 1000));
  recording = false;
  const seconds = (performance.now() - began) / 1000;
  stopped = true;
  await Promise.all(workers);
  agent.destroy();
  const sorted = latencies.sort((a, b) => a - b);
  const at = (p: number) =>
    sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? Number.NaN;
  const round = (n: number) => Math.round(n * 100) / 100;
  return {
    requests: sorted.length,
    seconds: round(seconds),
    rps: Math.round(sorted.length / seconds),
    p50Ms: round(at(50)),
    p90Ms: round(at(90)),
    p99Ms: round(at(99)),
    maxMs: round(sorted.at(-1) ?? Number.NaN),
    statuses,
    errors,
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [url, connections, seconds, headers] = process.argv.slice(2);
  const result = await generateLoad({
    url: url!,
    connections: Number(connections ?? 50),
    seconds: Number(seconds ?? 10),
    headers: headers ? (JSON.parse(headers) as Record<string, string>) : {},
  });
  process.stdout.write(`${JSON.stringify(result)}\n`);
}
