import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isBlockedAddress, isBlockedHostname } from '../../../src/providers/outbound/blocked-addresses.ts';

// Pure checks of the address table; the network tests rely on these addresses being refused.

const BLOCKED: [string, string][] = [
  ['127.0.0.1', 'loopback'],
  ['127.255.255.254', 'loopback /8'],
  ['10.0.0.1', 'private 10/8'],
  ['172.16.0.1', 'private 172.16/12'],
  ['172.31.255.255', 'private 172.16/12 end'],
  ['192.168.1.1', 'private 192.168/16'],
  ['169.254.169.254', 'cloud metadata'],
  ['169.254.0.1', 'link-local'],
  ['100.64.0.1', 'CGNAT'],
  ['100.100.100.200', 'Alibaba metadata (CGNAT)'],
  ['192.0.0.192', 'Oracle metadata (192.0.0/24)'],
  ['224.0.0.1', 'multicast'],
  ['239.255.255.250', 'multicast'],
  ['0.0.0.0', 'unspecified'],
  ['0.1.2.3', '0/8'],
  ['255.255.255.255', 'broadcast'],
  ['198.18.0.1', 'benchmarking'],
  ['198.19.255.255', 'benchmarking end'],
  ['240.0.0.1', 'reserved'],
  ['192.0.2.1', 'TEST-NET-1'],
  ['::1', 'IPv6 loopback'],
  ['::', 'IPv6 unspecified'],
  ['[::1]', 'bracketed loopback'],
  ['fc00::1', 'unique local'],
  ['fd00:ec2::254', 'AWS IPv6 metadata'],
  ['fe80::1', 'link-local'],
  ['fe80::1%eth0', 'link-local with zone'],
  ['ff02::1', 'multicast'],
  ['fec0::1', 'site-local'],
  ['2001:db8::1', 'documentation'],
  ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'Teredo'],
  ['::ffff:127.0.0.1', 'IPv4-mapped loopback, dotted'],
  ['::ffff:7f00:1', 'IPv4-mapped loopback, hex'],
  ['0:0:0:0:0:ffff:7f00:1', 'IPv4-mapped loopback, long'],
  ['::ffff:a9fe:a9fe', 'IPv4-mapped metadata'],
  ['::ffff:10.1.2.3', 'IPv4-mapped private'],
  ['::127.0.0.1', 'IPv4-compatible loopback'],
  ['::ffff:0:7f00:1', 'SIIT-translated loopback'],
  ['64:ff9b::a00:1', 'NAT64 of 10.0.0.1'],
  ['64:ff9b::127.0.0.1', 'NAT64 of loopback, dotted'],
  ['64:ff9b:1::1', 'local-use NAT64'],
  ['2002:a00:1::1', '6to4 of 10.0.0.1'],
  ['2002:7f00:1::', '6to4 of loopback'],
  ['2002:a9fe:a9fe::1', '6to4 of metadata'],
  ['not-an-ip', 'not an address (fails closed)'],
  ['', 'empty'],
];

const ALLOWED: [string, string][] = [
  ['8.8.8.8', 'public v4'],
  ['93.184.215.14', 'public v4'],
  ['172.32.0.1', 'just past 172.16/12'],
  ['100.128.0.1', 'just past CGNAT'],
  ['198.20.0.1', 'just past benchmarking'],
  ['223.255.255.255', 'just below multicast'],
  ['2606:4700:4700::1111', 'public v6'],
  ['2001:4860:4860::8888', 'public v6'],
  ['::ffff:8.8.8.8', 'IPv4-mapped public'],
  ['64:ff9b::808:808', 'NAT64 of a public address'],
  ['2002:808:808::1', '6to4 of a public address'],
];

describe('isBlockedAddress', () => {
  for (const [address, why] of BLOCKED) {
    it(`refuses ${address || '(empty)'} (${why})`, () => assert.equal(isBlockedAddress(address), true));
  }
  for (const [address, why] of ALLOWED) {
    it(`allows ${address} (${why})`, () => assert.equal(isBlockedAddress(address), false));
  }
});

describe('isBlockedHostname', () => {
  it('refuses localhost and metadata names however they are spelt', () => {
    for (const name of [
      'localhost',
      'LOCALHOST',
      'localhost.',
      'api.localhost',
      'metadata.google.internal',
      'metadata.google.internal.',
      'metadata.goog',
      'metadata',
    ]) {
      assert.equal(isBlockedHostname(name), true, name);
    }
  });
  it('leaves ordinary names to the resolver check', () => {
    for (const name of ['example.com', 'localhost.example.com', 'metadata.example.com', 'hooks.internal.example']) {
      assert.equal(isBlockedHostname(name), false, name);
    }
  });
});
