import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { RedisRateLimitStore } from '../../src/http/rate-limit-store.ts';
import { REDIS_URL, redisAvailable } from '../support/redis.ts';

const MAIN = path.join(path.dirname(fileURLToPath(import.meta.url)), '../../src/main.ts');
const ADMIN = 'redis-test-admin-key-0123456789';

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

async function waitHealthy(base: string, child: ChildProcess, output: () => string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (child.exitCode !== null) throw new Error(`service exited: ${output()}`);
    try {
      if ((await fetch(`${base}/healthz`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`service did not start: ${output()}`);
}

const available = await redisAvailable();

describe('rate limits shared through Redis by two service processes', {
  skip: available ? false : 'no Redis at TEST_REDIS_URL',
}, () => {
  const prefix = `dms-test:${process.pid}:${Date.now()}:`;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dms-redis-'));
  const children: ChildProcess[] = [];
  const bases: string[] = [];

  async function startService(): Promise<void> {
    const port = await freePort();
    let out = '';
    const child = spawn(process.execPath, [MAIN, 'serve'], {
      env: {
        ...process.env,
        DATA_DIR: dataDir,
        DATABASE_URL: '',
        PORT: String(port),
        HOST: '127.0.0.1',
        ADMIN_API_KEY: ADMIN,
        REDIS_URL,
        RATE_LIMIT_REDIS_PREFIX: prefix,
        WORKER_IN_PROCESS: 'false',
        LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (d) => (out += d));
    child.stderr!.on('data', (d) => (out += d));
    children.push(child);
    const base = `http://127.0.0.1:${port}`;
    await waitHealthy(base, child, () => out);
    bases.push(base);
  }

  before(async () => {
    // One after the other: the first start migrates the shared SQLite file.
    await startService();
    await startService();
  });

  after(async () => {
    for (const child of children) child.kill('SIGTERM');
    await Promise.all(children.map((c) => (c.exitCode !== null ? null : new Promise((r) => c.once('exit', r)))));
    const redis = new Redis(REDIS_URL);
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('counts one tenant’s requests across both processes against one limit', async () => {
    const created = await fetch(`${bases[0]}/api/v1/admin/tenants`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        name: 'Shared',
        subdomain: `shared-${process.pid}`,
        tier: 'free',
        owner: { email: 'o@example.com', password: 'long password', name: 'O' },
      }),
    });
    const createdText = await created.text();
    assert.equal(created.status, 201, createdText);
    const { api_key } = JSON.parse(createdText) as { api_key: string };
    const statuses: number[] = [];
    const remaining: string[] = [];
    let last: Response | null = null;
    // The Free tier allows 15 a minute. Alternate between the processes; a window boundary may
    // reset the counters once, so go on until a 429 arrives (at most two windows' worth).
    for (let i = 0; i < 32; i++) {
      const res = await fetch(`${bases[i % 2]}/api/v1/users`, { headers: { 'x-api-key': api_key } });
      statuses.push(res.status);
      remaining.push(res.headers.get('x-ratelimit-remaining') ?? '');
      if (res.status === 429) {
        last = res;
        break;
      }
      await res.arrayBuffer();
    }
    assert.ok(last, `no 429 in ${statuses.join(',')}`);
    const okRun = statuses.slice(0, -1);
    // Since the last window change, exactly 15 were let through, from both processes alike.
    const sinceReset = okRun.length - okRun.lastIndexOf(429) - 1;
    assert.ok(sinceReset === 15 || (okRun.length > 15 && sinceReset < 15), `statuses ${statuses.join(',')}`);
    if (okRun.length === 15)
      assert.deepEqual(
        remaining.slice(0, 15),
        Array.from({ length: 15 }, (_, i) => String(14 - i)),
      );
    const body = (await last.json()) as { error: string; details: { limit: number } };
    assert.equal(body.error, 'rate_limit_exceeded');
    assert.equal(body.details.limit, 15);
    assert.ok(Number(last.headers.get('retry-after')) >= 1);
    // The other process refuses too: the counter is shared.
    const other = await fetch(`${bases[statuses.length % 2]}/api/v1/users`, { headers: { 'x-api-key': api_key } });
    assert.ok(
      other.status === 429 || other.headers.get('x-ratelimit-remaining') === '14',
      `other process: ${other.status}`,
    );
  });

  it('one script call increments several counters with expiry', async () => {
    const store = new RedisRateLimitStore(REDIS_URL);
    try {
      const keys = [`${prefix}{unit}:a`, `${prefix}{unit}:b`];
      assert.deepEqual(await store.hit(keys, 60_000), [1, 1]);
      assert.deepEqual(await store.hit(keys, 60_000), [2, 2]);
      assert.deepEqual(await store.hit([keys[0]!], 60_000), [3]);
      const redis = new Redis(REDIS_URL);
      const ttl = await redis.pttl(keys[0]!);
      await redis.quit();
      assert.ok(ttl > 0 && ttl <= 60_000, `ttl ${ttl}`);
    } finally {
      await store.close();
    }
  });
});
