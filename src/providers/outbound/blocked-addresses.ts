import { BlockList, isIP } from 'node:net';

// Which destinations outbound calls may never reach while ALLOW_PRIVATE_NETWORK_TARGETS is off.
// Addresses arrive canonical: the WHATWG URL parser turns 2130706433, 0177.0.0.1, 0x7f.0.0.1 and
// 127.1 into 127.0.0.1, and resolvers return plain forms, so only the embedded-IPv4 forms of IPv6
// need unpacking here. Everything else is a prefix lookup in a net.BlockList.

const IPV4_BLOCKED: readonly [string, number][] = [
  ['0.0.0.0', 8], // "this network", unspecified
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // carrier-grade NAT (also Alibaba's metadata 100.100.100.200)
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local, cloud metadata 169.254.169.254
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments (Oracle metadata 192.0.0.192, NAT64 discovery)
  ['192.0.2.0', 24], // TEST-NET-1
  ['192.88.99.0', 24], // 6to4 relay anycast (deprecated)
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // TEST-NET-2
  ['203.0.113.0', 24], // TEST-NET-3
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, and 255.255.255.255 broadcast
];

const IPV6_BLOCKED: readonly [string, number][] = [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['64:ff9b:1::', 48], // local-use NAT64 (RFC 8215)
  ['100::', 64], // discard-only
  ['2001::', 32], // Teredo: the embedded IPv4 is obfuscated, so refuse the whole prefix
  ['2001:db8::', 32], // documentation
  ['3fff::', 20], // documentation (RFC 9637)
  ['fc00::', 7], // unique local, includes AWS metadata fd00:ec2::254
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
];

const ipv4List = new BlockList();
for (const [network, prefix] of IPV4_BLOCKED) ipv4List.addSubnet(network, prefix, 'ipv4');
const ipv6List = new BlockList();
for (const [network, prefix] of IPV6_BLOCKED) ipv6List.addSubnet(network, prefix, 'ipv6');

// Names that reach metadata services or the host itself without going through public DNS.
const BLOCKED_NAMES = new Set([
  'localhost',
  'metadata',
  'metadata.google.internal',
  'metadata.goog',
  'instance-data',
  'instance-data.ec2.internal',
]);

/**
 * True when an IP address is one outbound calls must refuse (loopback, private, link-local,
 * CGNAT, multicast, reserved, metadata, and IPv6 forms embedding such an IPv4 address).
 * Anything that is not an IP address counts as blocked: callers check resolved addresses.
 */
export function isBlockedAddress(ip: string): boolean {
  const address = unbracket(ip).replace(/%.*$/, ''); // drop an IPv6 zone id (fe80::1%eth0)
  const family = isIP(address);
  if (family === 4) return ipv4List.check(address, 'ipv4');
  if (family !== 6) return true;
  const embedded = embeddedIpv4(ipv6Words(address));
  if (embedded !== null && ipv4List.check(embedded, 'ipv4')) return true;
  return ipv6List.check(address, 'ipv6');
}

/** True for host names refused whatever they resolve to (localhost, cloud metadata names). */
export function isBlockedHostname(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.+$/, '');
  return BLOCKED_NAMES.has(name) || name.endsWith('.localhost');
}

/** `[::1]` (URL form) to `::1`; other strings unchanged. */
export function unbracket(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

/** The eight 16-bit words of a valid IPv6 address (a dotted IPv4 tail is accepted). */
function ipv6Words(address: string): number[] {
  let text = address.toLowerCase();
  const lastColon = text.lastIndexOf(':');
  const tail = text.slice(lastColon + 1);
  if (tail.includes('.')) {
    const [a = 0, b = 0, c = 0, d = 0] = tail.split('.').map(Number);
    text = `${text.slice(0, lastColon + 1)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', rest] = text.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = rest === undefined || rest === '' ? [] : rest.split(':');
  const zeros: string[] = rest === undefined ? [] : Array(8 - left.length - right.length).fill('0');
  return [...left, ...zeros, ...right].map((word) => Number.parseInt(word, 16));
}

/** The IPv4 address an IPv6 address stands for, when it is one of the translation forms. */
function embeddedIpv4(w: number[]): string | null {
  const zero = (from: number, to: number) => w.slice(from, to).every((x) => x === 0);
  const low32 = () => dotted(w[6]!, w[7]!);
  if (zero(0, 5) && w[5] === 0xffff) return low32(); // ::ffff:a.b.c.d, IPv4-mapped
  if (zero(0, 6)) return low32(); // ::a.b.c.d, IPv4-compatible (deprecated; also :: and ::1)
  if (zero(0, 4) && w[4] === 0xffff && w[5] === 0) return low32(); // ::ffff:0:a.b.c.d, SIIT
  if (w[0] === 0x64 && w[1] === 0xff9b && zero(2, 6)) return low32(); // 64:ff9b::/96, NAT64
  if (w[0] === 0x2002) return dotted(w[1]!, w[2]!); // 2002:AABB:CCDD::/48, 6to4
  return null;
}

function dotted(high: number, low: number): string {
  return `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`;
}
