import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import https from 'node:https';
import { createServer, type LookupFunction } from 'node:net';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import {
  createOutboundHttp,
  DEFAULT_USER_AGENT,
  type OutboundHttp,
  OutboundError,
  type OutboundErrorCode,
} from '../../../src/providers/outbound/outbound-http.ts';
import { type HttpsReceiver, httpsReceiverUnavailable, startHttpsReceiver } from '../../support/https-receiver.ts';

// The client's behaviour against a real local HTTPS server, with private targets allowed
// (ALLOW_PRIVATE_NETWORK_TARGETS=true, as in development and tests).

const MiB = 1024 * 1024;
const failsWith = (code: OutboundErrorCode) => (error: unknown) => {
  assert.ok(error instanceof OutboundError, `expected an OutboundError, got ${String(error)}`);
  assert.equal(error.code, code, error.message);
  return true;
};

/** A 127.0.0.1 port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('outbound HTTP client', { skip: httpsReceiverUnavailable() ?? false }, () => {
  let receiver: HttpsReceiver;
  let client: OutboundHttp;

  before(async () => {
    receiver = await startHttpsReceiver({ hostnames: ['receiver.test'] });
    client = createOutboundHttp({ allowPrivateNetwork: true, extraCa: [receiver.caPem] });
  });
  after(async () => {
    await client.close();
    await receiver.close();
  });

  it('sends method, headers and body, and returns status, headers and body', async () => {
    receiver.route('/hooks/a', { status: 201, headers: { 'x-answer': '42' }, body: '{"received":true}' });
    const payload = JSON.stringify({ id: 'evt_1', type: 'document.processed' });
    const res = await client.request({
      url: `${receiver.url}/hooks/a?attempt=1`,
      method: 'post',
      headers: { 'Content-Type': 'application/json', 'X-Service-Event': 'document.processed' },
      body: payload,
    });
    assert.equal(res.status, 201);
    assert.equal(res.headers['x-answer'], '42');
    assert.equal(res.body.toString(), '{"received":true}');
    assert.equal(res.truncated, false);
    assert.ok(res.durationMs >= 0 && Number.isInteger(res.durationMs));

    const seen = receiver.requests.at(-1)!;
    assert.equal(seen.method, 'POST');
    assert.equal(seen.url, '/hooks/a?attempt=1');
    assert.equal(seen.headers['content-type'], 'application/json');
    assert.equal(seen.headers['x-service-event'], 'document.processed');
    assert.equal(seen.headers['user-agent'], DEFAULT_USER_AGENT);
    assert.equal(seen.body.toString(), payload);
  });

  it('sends binary bodies as they are, keeps a caller User-Agent, turns URL credentials into Basic auth', async () => {
    const bytes = new Uint8Array([0, 1, 2, 253, 254, 255]);
    const url = new URL(`${receiver.url}/bin`);
    url.username = 'hook user';
    url.password = 'p@ss';
    await client.request({ url: url.href, method: 'PUT', headers: { 'User-Agent': 'custom/1' }, body: bytes });
    const seen = receiver.requests.at(-1)!;
    assert.deepEqual(new Uint8Array(seen.body), bytes);
    assert.equal(seen.headers['user-agent'], 'custom/1');
    assert.equal(seen.headers.authorization, `Basic ${Buffer.from('hook user:p@ss').toString('base64')}`);
  });

  it('reuses connections to the same origin (keep-alive), up to connectionsPerOrigin', async () => {
    const fresh = createOutboundHttp({ allowPrivateNetwork: true, connectionsPerOrigin: 1, extraCa: [receiver.caPem] });
    const before = receiver.connections;
    try {
      const urls = Array.from({ length: 4 }, (_, i) => `${receiver.url}/ka/${i}`);
      const answers = await Promise.all(urls.map((url) => fresh.request({ url })));
      assert.deepEqual(
        answers.map((a) => a.status),
        [200, 200, 200, 200],
      );
    } finally {
      await fresh.close();
    }
    assert.equal(receiver.connections - before, 1);
  });

  it('uses an injected resolver when private targets are allowed', async () => {
    const lookup: LookupFunction = (_host, options, callback) =>
      process.nextTick(() =>
        options.all ? callback(null, [{ address: '127.0.0.1', family: 4 }]) : callback(null, '127.0.0.1', 4),
      );
    const named = createOutboundHttp({ allowPrivateNetwork: true, lookup, extraCa: [receiver.caPem] });
    try {
      const res = await named.request({ url: `https://receiver.test:${receiver.port}/named` });
      assert.equal(res.status, 200);
      assert.equal(receiver.requests.at(-1)!.headers.host, `receiver.test:${receiver.port}`);
    } finally {
      await named.close();
    }
  });

  describe('time budget', () => {
    it('fails with timeout on an endpoint that never answers, within the budget', async () => {
      receiver.route('/hang', { hang: true });
      const started = performance.now();
      await assert.rejects(client.request({ url: `${receiver.url}/hang`, timeoutMs: 300 }), failsWith('timeout'));
      const elapsed = performance.now() - started;
      assert.ok(elapsed >= 250 && elapsed < 1500, `took ${elapsed} ms`);
    });

    it('counts the body against the same budget (headers sent, body stalls)', async () => {
      receiver.route('/stall', { stall: true });
      const started = performance.now();
      await assert.rejects(client.request({ url: `${receiver.url}/stall`, timeoutMs: 300 }), failsWith('timeout'));
      assert.ok(performance.now() - started < 1500);
    });

    it('succeeds when the answer comes inside the budget', async () => {
      receiver.route('/slow', { delayMs: 100, body: 'late' });
      const res = await client.request({ url: `${receiver.url}/slow`, timeoutMs: 2000 });
      assert.equal(res.body.toString(), 'late');
      assert.ok(res.durationMs >= 90);
    });

    it("fails with aborted when the caller's signal fires, including one aborted up front", async () => {
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 100);
      await assert.rejects(
        client.request({ url: `${receiver.url}/hang`, timeoutMs: 5000, signal: controller.signal }),
        failsWith('aborted'),
      );
      await assert.rejects(
        client.request({ url: `${receiver.url}/ok`, signal: AbortSignal.abort() }),
        failsWith('aborted'),
      );
    });
  });

  describe('response size', () => {
    it('cuts a body larger than maxResponseBytes and flags it', async () => {
      receiver.route('/big', { bodyBytes: 3 * MiB });
      const res = await client.request({ url: `${receiver.url}/big`, maxResponseBytes: 1000 });
      assert.equal(res.status, 200);
      assert.equal(res.body.length, 1000);
      assert.equal(res.body.toString(), 'a'.repeat(1000));
      assert.equal(res.truncated, true);
    });

    it('stops reading an endless body at the default 1 MiB', async () => {
      receiver.route('/endless', { bodyBytes: Number.POSITIVE_INFINITY });
      const res = await client.request({ url: `${receiver.url}/endless`, timeoutMs: 5000 });
      assert.equal(res.body.length, MiB);
      assert.equal(res.truncated, true);
    });

    it('does not flag a body of exactly the limit', async () => {
      receiver.route('/exact', { bodyBytes: 4096 });
      const res = await client.request({ url: `${receiver.url}/exact`, maxResponseBytes: 4096 });
      assert.equal(res.body.length, 4096);
      assert.equal(res.truncated, false);
    });
  });

  describe('redirects', () => {
    it('returns a 3xx as the response and does not follow it', async () => {
      receiver.route('/moved', { redirectTo: '/target' });
      receiver.route('/to-metadata', { status: 307, redirectTo: 'http://169.254.169.254/latest/meta-data/' });
      const res = await client.request({ url: `${receiver.url}/moved` });
      assert.equal(res.status, 302);
      assert.equal(res.headers.location, '/target');
      const other = await client.request({ url: `${receiver.url}/to-metadata`, method: 'POST', body: '{}' });
      assert.equal(other.status, 307);
      assert.ok(!receiver.requests.some((r) => r.path === '/target'));
    });
  });

  describe('failures', () => {
    it('invalid_url for anything but an absolute http(s) URL', async () => {
      for (const url of [
        'not a url',
        'ftp://127.0.0.1/',
        'file:///etc/passwd',
        '/relative/path',
        'data:text/plain,hi',
      ]) {
        await assert.rejects(client.request({ url }), failsWith('invalid_url'), url);
      }
    });

    it('connect_failed when nothing listens', async () => {
      await assert.rejects(
        client.request({ url: `http://127.0.0.1:${await closedPort()}/` }),
        failsWith('connect_failed'),
      );
    });

    it('tls when the certificate is not trusted', async () => {
      const untrusting = createOutboundHttp({ allowPrivateNetwork: true });
      try {
        await assert.rejects(untrusting.request({ url: `${receiver.url}/` }), failsWith('tls'));
      } finally {
        await untrusting.close();
      }
    });

    it('tls when the certificate does not name the host', async () => {
      const lookup: LookupFunction = (_host, _options, callback) =>
        process.nextTick(() => callback(null, '127.0.0.1', 4));
      const misnamed = createOutboundHttp({ allowPrivateNetwork: true, lookup, extraCa: [receiver.caPem] });
      try {
        await assert.rejects(misnamed.request({ url: `https://other.test:${receiver.port}/` }), failsWith('tls'));
      } finally {
        await misnamed.close();
      }
    });
  });

  describe('the same client for SDKs', () => {
    it('fetch bound to the guarded dispatcher reaches an allowed target', async () => {
      const res = await client.fetch(`${receiver.url}/via-fetch`, { method: 'POST', body: 'x' });
      assert.equal(res.status, 200);
      assert.equal(await res.text(), 'ok');
    });

    it('the node:https agent trusts the same extra CA', async () => {
      const status = await new Promise<number | undefined>((resolve, reject) => {
        https
          .get(`${receiver.url}/via-agent`, { agent: client.agents.https }, (res) => {
            res.resume();
            resolve(res.statusCode);
          })
          .on('error', reject);
      });
      assert.equal(status, 200);
    });
  });

  it('honours NODE_EXTRA_CA_CERTS, also when extraCa is given (Node default store not replaced)', async () => {
    const other = await startHttpsReceiver();
    const moduleUrl = pathToFileURL(`${import.meta.dirname}/../../../src/providers/outbound/outbound-http.ts`).href;
    // In a child process, since Node reads NODE_EXTRA_CA_CERTS once at start.
    const script = `
      const { createOutboundHttp } = await import(${JSON.stringify(moduleUrl)});
      const out = [];
      for (const extraCa of [undefined, [${JSON.stringify(other.caPem)}]]) {
        const client = createOutboundHttp({ allowPrivateNetwork: true, extraCa });
        try { out.push((await client.request({ url: ${JSON.stringify(`${receiver.url}/extra-ca`)} })).status); }
        catch (error) { out.push(error.code); }
        await client.close();
      }
      console.log(JSON.stringify(out));`;
    try {
      const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], {
        env: { ...process.env, NODE_EXTRA_CA_CERTS: receiver.caFile },
        timeout: 20_000,
      });
      assert.deepEqual(JSON.parse(stdout.trim()), [200, 200]);
    } finally {
      await other.close();
    }
  });
});
