import dns from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import tls from 'node:tls';
import { isBlockedAddress, isBlockedHostname, unbracket } from './blocked-addresses.ts';
import { OutboundError } from './outbound-error.ts';

// The SSRF guard sits where sockets are made, so it judges the address actually dialled: a name
// checked at webhook-create time and re-pointed at 127.0.0.1 later (DNS rebinding) still fails.

export type { LookupFunction } from 'node:net';

/** What every guarded socket factory needs. */
export interface GuardOptions {
  allowPrivateNetwork: boolean;
  /** dns.lookup-compatible resolver; tests inject one so no real DNS is used. */
  lookup?: LookupFunction | undefined;
  /** PEM certificates trusted on top of Node's default store (NODE_EXTRA_CA_CERTS included). */
  extraCa?: readonly string[] | undefined;
  /**
   * Tests only: replaces the address table, so the guarded path can be exercised end to end
   * against 127.0.0.1 without any public address. Production leaves it unset.
   */
  blockedAddress?: ((ip: string) => boolean) | undefined;
}

type Policy = Pick<GuardOptions, 'allowPrivateNetwork' | 'blockedAddress'>;

/** The address check in force, or null when everything is allowed. */
export function addressCheck(policy: Policy): ((ip: string) => boolean) | null {
  return policy.allowPrivateNetwork ? null : (policy.blockedAddress ?? isBlockedAddress);
}

/**
 * Said with every refusal of a private target: someone trying webhooks against a receiver on their
 * own machine needs the setting's name, not just a no (docs/webhooks.md "Trying webhooks locally").
 */
export const PRIVATE_TARGETS_HINT =
  'such targets are allowed only when the service runs with ALLOW_PRIVATE_NETWORK_TARGETS=true (local development)';

export function blocked(what: string): OutboundError {
  return new OutboundError(
    'blocked_address',
    `Refusing to connect to ${what}: private or reserved address; ${PRIVATE_TARGETS_HINT}`,
  );
}

/** The refusal for a host (name or literal address) before any DNS or socket, or null. */
export function refusalForHost(host: string, policy: Policy): OutboundError | null {
  const isBlocked = addressCheck(policy);
  if (!isBlocked) return null;
  const bare = unbracket(host);
  if (isIP(bare.replace(/%.*$/, '')) !== 0) return isBlocked(bare) ? blocked(bare) : null;
  return isBlockedHostname(bare) ? blocked(bare) : null;
}

/**
 * A resolver that fails with `blocked_address` when any address a name resolves to is blocked
 * (a name mixing public and private answers is refused outright, not filtered). Without
 * `isBlocked` it only normalises the answer to the shape net asks for (`all` or not).
 */
export function guardedLookup(base: LookupFunction, isBlocked: ((ip: string) => boolean) | null): LookupFunction {
  return (hostname, options, callback) => {
    base(hostname, { ...options, all: true }, (err, result, family) => {
      if (err) return callback(err, '');
      const addresses =
        typeof result === 'string' ? [{ address: result, family: family ?? isIP(result) }] : [...result];
      const first = addresses[0];
      const bad = isBlocked ? addresses.find((a) => isBlocked(a.address)) : undefined;
      if (bad) return callback(blocked(`${hostname} (${bad.address})`), '');
      if (!first) return callback(Object.assign(new Error(`No address for ${hostname}`), { code: 'ENOTFOUND' }), '');
      if (options.all) callback(null, addresses);
      else callback(null, first.address, first.family);
    });
  };
}

/** The `lookup` sockets should use: guarded unless private targets are allowed. */
export function socketLookup(options: GuardOptions): LookupFunction | undefined {
  const isBlocked = addressCheck(options);
  if (!isBlocked && !options.lookup) return undefined;
  return guardedLookup(options.lookup ?? (dns.lookup as LookupFunction), isBlocked);
}

/**
 * The `ca` option for TLS sockets, or undefined to keep Node's default store. Giving `ca` replaces
 * that store, so extra certificates are appended to it (which already holds NODE_EXTRA_CA_CERTS).
 */
export function trustedCa(extraCa: readonly string[] | undefined): string[] | undefined {
  if (!extraCa || extraCa.length === 0) return undefined;
  return [...tls.getCACertificates('default'), ...extraCa];
}
