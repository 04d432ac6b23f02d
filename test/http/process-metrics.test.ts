import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { freePort } from '../../bench/support.ts';
import { describeEachDialect } from '../support/app.ts';
import { waitUntilAnswering } from '../process/multi-process-support.ts';

const MAIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src/main.ts');

/** prom-client's standard process and Node.js metrics an operator watches for a spike or a stall. */
const STANDARD = [
  /^process_resident_memory_bytes \d+/m,
  /^process_cpu_seconds_total \d/m,
  /^nodejs_heap_size_used_bytes \d+/m,
  /^nodejs_external_memory_bytes \d+/m,
  /^nodejs_eventloop_lag_seconds \d/m,
  /^nodejs_eventloop_lag_p99_seconds \d/m,
  /^nodejs_active_handles_total \d+/m,
  /^nodejs_heap_space_size_used_bytes\{space="old"\} \d+/m,
];

/** A sample's value, from Prometheus text. */
function value(text: string, name: string): number {
  const match = new RegExp(`^${name} ([0-9.e+-]+)$`, 'm').exec(text);
  assert.ok(match, `${name} in\n${text.slice(0, 500)}`);
  return Number(match[1]);
}

describeEachDialect('process metrics', (ctx, dialect) => {
  it("the API's /metrics carries the standard process and Node.js metrics beside its own", async () => {
    await ctx().app.inject({ method: 'GET', url: '/healthz' });
    const res = await ctx().app.inject({ method: 'GET', url: '/metrics' });
    assert.equal(res.statusCode, 200);
    for (const metric of STANDARD) assert.match(res.body, metric);
    // The resident memory is this process's, as the kernel counts it.
    const rss = value(res.body, 'process_resident_memory_bytes');
    const now = process.memoryUsage.rss();
    assert.ok(rss > now / 2 && rss < now * 2, `${rss} against ${now}`);
    // Today's metrics are still there.
    assert.match(res.body, /http_requests_total\{method="GET",route="\/healthz",status_code="200"\} \d+/);
    assert.match(res.body, /# TYPE jobs gauge/);
    assert.match(res.body, /# TYPE job_runs_total counter/);
  });

  it('a worker process serves its own metrics on WORKER_METRICS_PORT, and stops serving them on SIGTERM', async () => {
    const port = await freePort();
    const store = ctx().store;
    const env = {
      ...process.env,
      LOG_LEVEL: 'info',
      WORKER_METRICS_PORT: String(port),
      HOST: '127.0.0.1',
      ADMIN_API_KEY: 'worker-metrics-admin-key',
      DATA_DIR: store.dataDir,
      ...(store.url ? { DATABASE_URL: store.url } : {}),
    };
    const child: ChildProcess = spawn(process.execPath, [MAIN, 'worker'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout?.on('data', (d) => (out += String(d)));
    child.stderr?.on('data', (d) => (out += String(d)));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      await waitUntilAnswering(`http://127.0.0.1:${port}/metrics`, child, () => out);
      const res = await fetch(`http://127.0.0.1:${port}/metrics`);
      assert.equal(res.status, 200);
      assert.match(String(res.headers.get('content-type')), /^text\/plain/);
      const text = await res.text();
      for (const metric of STANDARD) assert.match(text, metric);
      // The worker's own registry: its job gauge reads this database, and the memory is the worker's.
      assert.match(text, /# TYPE jobs gauge/);
      assert.match(text, /# TYPE job_runs_total counter/);
      assert.doesNotMatch(text, /http_requests_total\{/, 'a worker serves no API requests');
      assert.ok(value(text, 'process_resident_memory_bytes') > 30 * 1024 * 1024);
      assert.match(out, /"msg":"worker metrics listening"/);
      assert.equal((await fetch(`http://127.0.0.1:${port}/api/v1/documents`)).status, 404);
      assert.equal((await fetch(`http://127.0.0.1:${port}/metrics`, { method: 'POST' })).status, 404);
    } finally {
      child.kill('SIGTERM');
    }
    assert.equal(await exited, 0, out);
    assert.match(out, /"msg":"stopped"/);
    await assert.rejects(fetch(`http://127.0.0.1:${port}/metrics`), `nothing listens after SIGTERM (${dialect})`);
  });
});
