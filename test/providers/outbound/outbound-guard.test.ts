import assert from 'node:assert/strict';
import dc from 'node:diagnostics_channel';
import http from 'node:http';
import { isIP, type LookupFunction, type Socket } from 'node:net';
import { after, before, beforeEach, describe, it } from 'node:test';
import {
  checkUrlTarget,
  createOutboundHttp,
  isBlockedAddress,
  type OutboundHttp,
  OutboundError,
} from '../../../src/providers/outbound/outbound-http.ts';
import { type HttpsReceiver, httpsReceiverUnavailable, startHttpsReceiver } from '../../support/https-receiver.ts';

// SSRF refusals with ALLOW_PRIVATE_NETWORK_TARGETS off. Loopback targets point at a local receiver
// so a guard failure would show up as a connection there; every other refused address is checked
// by watching Node's socket channel: no socket, or no connection attempt, may appear.
// No test here contacts anything but 127.0.0.1; names resolve through an injected fake resolver.

const PUBLIC_IP = '93.184.215.14'; // only ever returned by the fake resolver, never dialled

/** Counts client sockets made through net.connect (http://) and their connection attempts. */
function watchSockets() {
  const seen = { sockets: 0, attempts: [] as string[] };
  const onSocket = (message: unknown) => {
    seen.sockets++;
    (message as { socket: Socket }).socket.on('connectionAttempt', (ip: string, port: number) => {
      seen.attempts.push(`${ip}:${port}`);
    });
  };
  dc.subscribe('net.client.socket', onSocket);
  return { seen, stop: () => dc.unsubscribe('net.client.socket', onSocket) };
}

/** A resolver from a table; a function entry answers differently on each call. */
function fakeDns(table: Record<string, string[] | (() => string[])>) {
  const calls: string[] = [];
  const lookup: LookupFunction = (hostname, options, callback) => {
    calls.push(hostname);
    const entry = table[hostname];
    const addresses = typeof entry === 'function' ? entry() : entry;
    process.nextTick(() => {
      if (!addresses) {
        return callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), '');
      }
      const list = addresses.map((address) => ({ address, family: isIP(address) }));
      if (options.all) callback(null, list);
      else callback(null, list[0]!.address, list[0]!.family);
    });
  };
  return { lookup, calls };
}

const isBlocked = (error: unknown) => error instanceof OutboundError && error.code === 'blocked_address';

describe('outbound guard (private network refused)', { skip: httpsReceiverUnavailable() ?? false }, () => {
  let receiver: HttpsReceiver;
  let client: OutboundHttp;
  let watch: ReturnType<typeof watchSockets>;
  const dns = fakeDns({
    'private.test': ['10.0.0.7'],
    'loopback.test': ['127.0.0.1'],
    'mixed.test': [PUBLIC_IP, '10.0.0.7'],
    'mapped.test': ['::ffff:127.0.0.1'],
    'metadata.test': ['169.254.169.254'],
  });

  before(async () => {
    receiver = await startHttpsReceiver();
    client = createOutboundHttp({ allowPrivateNetwork: false, lookup: dns.lookup, extraCa: [receiver.caPem] });
    watch = watchSockets();
  });
  after(async () => {
    watch.stop();
    await client.close();
    await receiver.close();
  });
  beforeEach(() => {
    watch.seen.sockets = 0;
    watch.seen.attempts.length = 0;
  });

  it('(control) the socket watch does see sockets and attempts when a call is allowed', async () => {
    const allowed = createOutboundHttp({ allowPrivateNetwork: true, lookup: dns.lookup });
    try {
      // Plain HTTP to the TLS port: the exchange fails, but only after connecting.
      await assert.rejects(allowed.request({ url: `http://loopback.test:${receiver.port}/`, timeoutMs: 2000 }));
    } finally {
      await allowed.close();
    }
    assert.equal(watch.seen.sockets, 1);
    assert.deepEqual(watch.seen.attempts, [`127.0.0.1:${receiver.port}`]);
  });

  describe('loopback in every literal spelling, refused before any socket exists', () => {
    const spellings = [
      '127.0.0.1',
      '2130706433', // decimal
      '0177.0.0.1', // octal
      '0x7f.0.0.1', // hex octet
      '0x7f000001', // hex
      '017700000001', // octal, one number
      '127.1', // short form
      '127.0.0.1.', // trailing dot
      '[::1]',
      '[::ffff:127.0.0.1]', // IPv4-mapped, dotted
      '[::ffff:7f00:1]', // IPv4-mapped, hex
      '[0:0:0:0:0:ffff:7f00:1]',
      '[::127.0.0.1]', // IPv4-compatible
      '[64:ff9b::7f00:1]', // NAT64
      '[2002:7f00:1::]', // 6to4
      '0.0.0.0',
      '0',
      '[::]',
      'localhost',
      'LocalHost.',
      'hooks.localhost',
    ];
    for (const host of spellings) {
      for (const scheme of ['http', 'https']) {
        it(`${scheme}://${host}`, async () => {
          const before = receiver.connections;
          await assert.rejects(client.request({ url: `${scheme}://${host}:${receiver.port}/hook` }), isBlocked);
          assert.equal(receiver.connections, before, 'the receiver saw a connection');
          assert.equal(watch.seen.sockets, 0, 'a socket was created');
        });
      }
    }
  });

  describe('other private, reserved and metadata targets, refused before any socket exists', () => {
    const urls = [
      'http://10.0.0.1/',
      'http://172.16.5.4/',
      'http://192.168.1.1/',
      'http://169.254.169.254/latest/meta-data/',
      'https://169.254.169.254/latest/meta-data/',
      'http://[fd00:ec2::254]/latest/meta-data/',
      'http://metadata.google.internal/computeMetadata/v1/',
      'http://metadata.google.internal./computeMetadata/v1/',
      'http://100.64.0.1/',
      'http://100.100.100.200/',
      'http://224.0.0.1/',
      'http://255.255.255.255/',
      'http://198.18.0.1/',
      'http://240.0.0.1/',
      'http://[fe80::1]/',
      'http://[fc00::1]/',
      'http://[ff02::1]/',
      'http://[::ffff:a9fe:a9fe]/', // mapped metadata
      'http://[::ffff:169.254.169.254]/',
      'http://[64:ff9b::a00:1]/', // NAT64 of 10.0.0.1
      'http://[2002:a9fe:a9fe::]/', // 6to4 of metadata
      'http://2852039166/', // 169.254.169.254 in decimal
      'http://0xa9.0xfe.0xa9.0xfe/',
      'http://0251.0376.0251.0376/',
      'http://10.1/',
    ];
    for (const url of urls) {
      it(url, async () => {
        await assert.rejects(client.request({ url, timeoutMs: 2000 }), isBlocked);
        assert.equal(watch.seen.sockets, 0);
      });
    }
  });

  describe('names whose addresses are private, refused at resolution, before any connection attempt', () => {
    for (const name of ['private.test', 'loopback.test', 'mixed.test', 'mapped.test', 'metadata.test']) {
      it(name, async () => {
        const before = receiver.connections;
        await assert.rejects(client.request({ url: `http://${name}:${receiver.port}/hook` }), isBlocked);
        await assert.rejects(client.request({ url: `https://${name}:${receiver.port}/hook` }), isBlocked);
        assert.ok(dns.calls.includes(name), 'the injected resolver was used');
        assert.deepEqual(watch.seen.attempts, []);
        assert.equal(receiver.connections, before);
      });
    }
    it('a resolver that ignores `all` and answers one private address', async () => {
      const single: LookupFunction = (_host, _options, callback) =>
        process.nextTick(() => callback(null, '127.0.0.1', 4));
      const other = createOutboundHttp({ allowPrivateNetwork: false, lookup: single });
      try {
        await assert.rejects(other.request({ url: `http://single.test:${receiver.port}/` }), isBlocked);
        assert.deepEqual(watch.seen.attempts, []);
      } finally {
        await other.close();
      }
    });
  });

  it('DNS rebinding: public when the URL is saved, loopback when delivered, refused at connect', async () => {
    let answers = 0;
    const rebinding = fakeDns({ 'rebind.test': () => (answers++ === 0 ? [PUBLIC_IP] : ['127.0.0.1']) });
    const url = `https://rebind.test:${receiver.port}/hook`;
    assert.deepEqual(
      await checkUrlTarget(url, { allowPrivateNetwork: false, httpsOnly: true, lookup: rebinding.lookup }),
      { ok: true },
    );
    const other = createOutboundHttp({
      allowPrivateNetwork: false,
      lookup: rebinding.lookup,
      extraCa: [receiver.caPem],
    });
    const before = receiver.connections;
    try {
      await assert.rejects(other.request({ url, method: 'POST', body: '{}' }), isBlocked);
    } finally {
      await other.close();
    }
    assert.equal(answers, 2, 'the name was resolved again at connect time');
    assert.equal(receiver.connections, before);
    assert.deepEqual(receiver.requests, []);
  });

  it('with the guard on, an allowed address goes all the way through (every layer lets it pass)', async () => {
    // No public address may be contacted, so this test declares 127.0.0.1 (only) allowed.
    const only127 = (ip: string) => ip !== '127.0.0.1' && isBlockedAddress(ip);
    const lookup = fakeDns({ 'receiver.test': ['127.0.0.1'], 'other.test': ['127.0.0.2'] }).lookup;
    const named = await startHttpsReceiver({ hostnames: ['receiver.test'] });
    const extraCa = [receiver.caPem, named.caPem];
    const guarded = createOutboundHttp({ allowPrivateNetwork: false, blockedAddress: only127, lookup, extraCa });
    try {
      assert.equal((await guarded.request({ url: `https://receiver.test:${named.port}/through` })).status, 200);
      assert.equal((await guarded.request({ url: `${receiver.url}/through` })).status, 200);
      assert.equal((await guarded.fetch(`${receiver.url}/through`)).status, 200);
      await assert.rejects(guarded.request({ url: `https://other.test:${named.port}/` }), isBlocked);
      await assert.rejects(guarded.request({ url: `https://[::1]:${named.port}/` }), isBlocked);
      await assert.rejects(guarded.request({ url: `https://localhost:${named.port}/` }), isBlocked);
      assert.equal(named.requests.length, 1);
    } finally {
      await guarded.close();
      await named.close();
    }
  });

  describe('the guard is in the connection layer, not only in request()', () => {
    it('dispatcher.request to literal private addresses', async () => {
      for (const origin of [
        `http://127.0.0.1:${receiver.port}`,
        `http://[::1]:${receiver.port}`,
        'http://10.0.0.1',
        'http://169.254.169.254',
      ]) {
        await assert.rejects(
          (await client.dispatcher()).request({ origin, path: '/', method: 'GET' }),
          isBlocked,
          origin,
        );
      }
      assert.equal(watch.seen.sockets, 0);
    });

    it('dispatcher.request to a name resolving to loopback', async () => {
      const origin = `https://loopback.test:${receiver.port}`;
      await assert.rejects((await client.dispatcher()).request({ origin, path: '/', method: 'GET' }), isBlocked);
      assert.deepEqual(watch.seen.attempts, []);
    });

    it('fetch bound to the dispatcher', async () => {
      await assert.rejects(client.fetch('http://169.254.169.254/latest/meta-data/'), (error: unknown) => {
        return error instanceof TypeError && isBlocked(error.cause);
      });
      await assert.rejects(client.fetch(`http://private.test:${receiver.port}/`), (error: unknown) => {
        return error instanceof TypeError && isBlocked(error.cause);
      });
      assert.deepEqual(watch.seen.attempts, []);
    });

    it('node:http agents (for the AWS SDK)', async () => {
      const get = (options: http.RequestOptions) =>
        new Promise<unknown>((resolve, reject) => {
          http.get({ ...options, agent: client.agents.http }, (res) => resolve(res.resume())).on('error', reject);
        });
      await assert.rejects(get({ host: '169.254.169.254', path: '/' }), isBlocked);
      await assert.rejects(get({ host: '::1', port: receiver.port, path: '/' }), isBlocked);
      await assert.rejects(get({ host: 'loopback.test', port: receiver.port, path: '/' }), isBlocked);
      assert.deepEqual(watch.seen.attempts, []);
    });
  });
});

describe('checkUrlTarget', () => {
  const dns = fakeDns({
    'public.test': [PUBLIC_IP],
    'private.test': ['192.168.0.10'],
    'v6.test': ['2606:4700::1', 'fd12::1'],
  });
  const check = (url: string, extra: Partial<Parameters<typeof checkUrlTarget>[1]> = {}) =>
    checkUrlTarget(url, { allowPrivateNetwork: false, httpsOnly: true, lookup: dns.lookup, ...extra });

  it('accepts an https URL whose name resolves to public addresses', async () => {
    assert.deepEqual(await check('https://public.test/hooks'), { ok: true });
  });

  it('refuses http when https is required, and URLs that are not http(s)', async () => {
    assert.deepEqual(await check('http://public.test/hooks'), { ok: false, reason: 'URL must use HTTPS' });
    for (const url of ['not a url', 'ftp://public.test/', 'file:///etc/passwd', '/relative', 'javascript:alert(1)']) {
      assert.equal((await check(url)).ok, false, url);
    }
    assert.deepEqual(await check('http://public.test/', { httpsOnly: false }), { ok: true });
  });

  it('refuses literal private addresses, blocked names and names resolving to private addresses', async () => {
    for (const url of [
      'https://127.0.0.1/',
      'https://2130706433/',
      'https://[::ffff:7f00:1]/',
      'https://169.254.169.254/',
      'https://metadata.google.internal/',
      'https://localhost:8443/',
      'https://private.test/',
      'https://v6.test/',
    ]) {
      const result = await check(url);
      assert.equal(result.ok, false, url);
      assert.ok(!result.ok && result.reason.length > 0);
    }
  });

  it('passes a name that does not resolve (or not in time): the connect-time guard decides later', async () => {
    assert.deepEqual(await check('https://nowhere.test/'), { ok: true });
    const hanging: LookupFunction = () => {};
    assert.deepEqual(await check('https://slow.test/', { lookup: hanging, lookupTimeoutMs: 20 }), { ok: true });
  });

  it('skips resolution when asked, and allows everything with allowPrivateNetwork', async () => {
    const before = dns.calls.length;
    assert.deepEqual(await check('https://private.test/', { resolve: false }), { ok: true });
    assert.equal(dns.calls.length, before);
    assert.deepEqual(await check('https://127.0.0.1/', { allowPrivateNetwork: true }), { ok: true });
    assert.deepEqual(await check('http://127.0.0.1/', { allowPrivateNetwork: true }), {
      ok: false,
      reason: 'URL must use HTTPS',
    });
  });
});
