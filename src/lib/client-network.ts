import { isIPv6 } from 'node:net';

/**
 * What per-client limits count by: an IPv4 address as is (IPv4-mapped IPv6 unwrapped), an IPv6
 * address cut to its /64 (one host is commonly given a whole /64, so it could otherwise rotate).
 */
export function clientNetwork(ip: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped) return mapped[1]!;
  if (!isIPv6(ip)) return ip;
  const [head = '', tail = ''] = ip.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  // A trailing dotted IPv4 part (`64:ff9b::192.0.2.1`) is two groups wide.
  const width = (groups: string[]) => groups.length + (groups.at(-1)?.includes('.') ? 1 : 0);
  const groups = ip.includes('::')
    ? [...left, ...Array(Math.max(0, 8 - width(left) - width(right))).fill('0'), ...right]
    : left;
  return `${groups
    .slice(0, 4)
    .map((g) => g.toLowerCase().replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}
